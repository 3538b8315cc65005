export const VERSION = "0.6.0";
export const PROTOCOL = "agentbank/http-json";
