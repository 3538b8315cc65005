// What an e-mail address is to agentbank (a recipient, MAIL_FROM's address): ASCII `local@domain`, the
// local part a dot-atom and the domain host-name labels (RFC 5321/5322; no quoted local part, no IP
// literal, no display name, no internationalized address). Nothing that could end a header line or add
// a recipient — CR, LF, a space, a comma, an angle bracket — fits it. The routes' `format: "email"` is
// the same rule with a dot required in the domain.

const MAILBOX = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;

/** RFC 5321's limits: 64 octets of local part, 254 of address (a path of 256 with its brackets). */
export const MAX_ADDRESS_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;

export function isMailbox(address: string): boolean {
  return address.length <= MAX_ADDRESS_LENGTH && address.indexOf("@") <= MAX_LOCAL_PART_LENGTH && MAILBOX.test(address);
}
