// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// STAND-INS, written for agentbank's tests: the x402 `batch-settlement` escrow and its ERC-3009 deposit
// collector, placed with anvil_setCode at the addresses @x402/evm 2.27.0 uses (BATCH_SETTLEMENT_ADDRESS
// 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003, ERC3009_DEPOSIT_COLLECTOR_ADDRESS
// 0x4020806089470a89826cB9fB1f4059150b550004).
//
// Why stand-ins: no package on a registry CI reaches (npm, PyPI, crates.io, Maven, Debian) ships the
// official contracts (x402-foundation/x402 contracts/evm/src/x402BatchSettlement.sol and
// periphery/ERC3009DepositCollector.sol) as source or bytecode, and code read from GitHub may not be
// committed. These were written from the official contracts' documented behaviour: the same external
// functions, selectors, events, EIP-712 domain ("x402 Batch Settlement", "1") and type hashes, and the
// same checks on every path @x402/evm's batch-settlement client, server and facilitator call (deposit
// through a collector, claim, claimWithSignature, settle, refund, refundWithSignature, initiateWithdraw,
// finalizeWithdraw, multicall and the views). Deliberate simplifications, none of which those packages
// exercise: signatures are EOA only (no ERC-1271/6492), no reentrancy guard (the test token has no
// hooks), no Permit2 collector (agentbank deposits through ERC-3009 only).
//
// The domain separator is computed at call time from address(this), and nothing depends on a
// constructor, so the runtime code works where anvil_setCode puts it (storage empty).

interface IReceiveWithAuthorization {
    function receiveWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes calldata signature
    ) external;
    function transfer(address to, uint256 value) external returns (bool);
    function balanceOf(address owner) external view returns (uint256);
}

contract StandInBatchSettlement {
    struct ChannelConfig {
        address payer;
        address payerAuthorizer;
        address receiver;
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }
    struct ChannelState {
        uint128 balance;
        uint128 totalClaimed;
    }
    struct WithdrawalState {
        uint128 amount;
        uint40 initiatedAt;
    }
    struct ReceiverState {
        uint128 totalClaimed;
        uint128 totalSettled;
    }
    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }
    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    uint40 public constant MIN_WITHDRAW_DELAY = 15 minutes;
    uint40 public constant MAX_WITHDRAW_DELAY = 30 days;
    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 public constant CLAIM_ENTRY_TYPEHASH = keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 public constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    mapping(bytes32 => ChannelState) public channels;
    mapping(bytes32 => uint256) public refundNonce;
    mapping(bytes32 => WithdrawalState) public pendingWithdrawals;
    mapping(address => mapping(address => ReceiverState)) public receivers;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter);
    event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount);

    error InvalidChannel();
    error ZeroDeposit();
    error DepositOverflow();
    error InvalidSignature();
    error NotReceiverAuthorizer();
    error NotAuthorizedToClaim();
    error NotAuthorizedToRefund();
    error ClaimExceedsCeiling();
    error ClaimExceedsBalance();
    error WithdrawalAlreadyPending();
    error WithdrawalNotPending();
    error NotAuthorizedToFinalizeWithdraw();
    error WithdrawDelayNotElapsed();
    error NothingToWithdraw();
    error WithdrawAmountExceedsAvailable();
    error WithdrawDelayOutOfRange();
    error EmptyBatch();
    error DepositCollectionFailed();
    error InvalidCollector();
    error InvalidRefundNonce();
    error ZeroRefund();

    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; ++i) {
            (bool ok, bytes memory result) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly {
                    revert(add(result, 32), mload(result))
                }
            }
            results[i] = result;
        }
    }

    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData) external {
        if (config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0) || config.token == address(0)) {
            revert InvalidChannel();
        }
        if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) revert WithdrawDelayOutOfRange();
        if (amount == 0) revert ZeroDeposit();
        if (collector == address(0)) revert InvalidCollector();
        bytes32 channelId = getChannelId(config);
        ChannelState storage ch = channels[channelId];
        if (amount > type(uint128).max - ch.balance) revert DepositOverflow();
        ch.balance += amount;
        uint256 before = IReceiveWithAuthorization(config.token).balanceOf(address(this));
        StandInERC3009DepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        if (IReceiveWithAuthorization(config.token).balanceOf(address(this)) != before + amount) revert DepositCollectionFailed();
        if (ch.balance == amount && ch.totalClaimed == 0) emit ChannelCreated(channelId, config);
        emit Deposited(channelId, msg.sender, amount, ch.balance);
    }

    function claim(VoucherClaim[] calldata voucherClaims) external {
        if (voucherClaims.length == 0) revert EmptyBatch();
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            if (!_receiverSide(msg.sender, voucherClaims[i].voucher.channel)) revert NotAuthorizedToClaim();
            _claim(voucherClaims[i]);
        }
    }

    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature) external {
        if (voucherClaims.length == 0) revert EmptyBatch();
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        if (_recover(getClaimBatchDigest(voucherClaims), authorizerSignature) != authorizer) revert InvalidSignature();
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert NotReceiverAuthorizer();
            _claim(voucherClaims[i]);
        }
    }

    function settle(address receiver, address token) external {
        ReceiverState storage rs = receivers[receiver][token];
        uint128 amount = rs.totalClaimed - rs.totalSettled;
        if (amount == 0) return;
        rs.totalSettled = rs.totalClaimed;
        _send(token, receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert InvalidChannel();
        if (amount == 0) revert NothingToWithdraw();
        bytes32 channelId = getChannelId(config);
        WithdrawalState storage ws = pendingWithdrawals[channelId];
        if (ws.initiatedAt != 0) revert WithdrawalAlreadyPending();
        ChannelState storage ch = channels[channelId];
        if (amount > ch.balance - ch.totalClaimed) revert WithdrawAmountExceedsAvailable();
        ws.amount = amount;
        ws.initiatedAt = uint40(block.timestamp);
        emit WithdrawInitiated(channelId, amount, uint40(block.timestamp) + config.withdrawDelay);
    }

    function finalizeWithdraw(ChannelConfig calldata config) external {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert NotAuthorizedToFinalizeWithdraw();
        bytes32 channelId = getChannelId(config);
        WithdrawalState storage ws = pendingWithdrawals[channelId];
        if (ws.initiatedAt == 0) revert WithdrawalNotPending();
        if (block.timestamp < uint256(ws.initiatedAt) + uint256(config.withdrawDelay)) revert WithdrawDelayNotElapsed();
        ChannelState storage ch = channels[channelId];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 amount = ws.amount > available ? available : ws.amount;
        ws.amount = 0;
        ws.initiatedAt = 0;
        ch.balance -= amount;
        emit WithdrawFinalized(channelId, msg.sender, amount);
        if (ch.balance == 0 && ch.totalClaimed == 0) emit ChannelClosed(channelId, config);
        if (amount > 0) _send(config.token, config.payer, amount);
    }

    function refund(ChannelConfig calldata config, uint128 amount) external {
        if (!_receiverSide(msg.sender, config)) revert NotAuthorizedToRefund();
        _refund(config, amount);
    }

    function refundWithSignature(ChannelConfig calldata config, uint128 amount, uint256 nonce, bytes calldata receiverAuthorizerSignature) external {
        bytes32 channelId = getChannelId(config);
        if (nonce != refundNonce[channelId]) revert InvalidRefundNonce();
        if (_recover(getRefundDigest(channelId, nonce, amount), receiverAuthorizerSignature) != config.receiverAuthorizer) revert InvalidSignature();
        _refund(config, amount);
    }

    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _typed(keccak256(abi.encode(CHANNEL_CONFIG_TYPEHASH, config)));
    }

    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _typed(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _typed(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entries = new bytes32[](voucherClaims.length);
        for (uint256 i = 0; i < voucherClaims.length; ++i) {
            entries[i] = keccak256(
                abi.encode(
                    CLAIM_ENTRY_TYPEHASH,
                    getChannelId(voucherClaims[i].voucher.channel),
                    voucherClaims[i].voucher.maxClaimableAmount,
                    voucherClaims[i].totalClaimed
                )
            );
        }
        return _typed(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    function _receiverSide(address sender, ChannelConfig calldata config) internal pure returns (bool) {
        return sender == config.receiverAuthorizer || sender == config.receiver;
    }

    /// Cumulative: a claim at or below what is recorded does nothing (a replayed voucher moves nothing).
    function _claim(VoucherClaim calldata vc) internal {
        bytes32 channelId = getChannelId(vc.voucher.channel);
        ChannelState storage ch = channels[channelId];
        if (vc.totalClaimed <= ch.totalClaimed) return;
        if (vc.totalClaimed > vc.voucher.maxClaimableAmount) revert ClaimExceedsCeiling();
        if (vc.totalClaimed > ch.balance) revert ClaimExceedsBalance();
        address signer = vc.voucher.channel.payerAuthorizer != address(0) ? vc.voucher.channel.payerAuthorizer : vc.voucher.channel.payer;
        if (_recover(getVoucherDigest(channelId, vc.voucher.maxClaimableAmount), vc.signature) != signer) revert InvalidSignature();
        uint128 delta = vc.totalClaimed - ch.totalClaimed;
        ch.totalClaimed = vc.totalClaimed;
        receivers[vc.voucher.channel.receiver][vc.voucher.channel.token].totalClaimed += delta;
        emit Claimed(channelId, msg.sender, delta, vc.totalClaimed);
    }

    /// The nonce advances first, on every refund that reaches here, even one capped to nothing.
    function _refund(ChannelConfig calldata config, uint128 amount) internal {
        if (amount == 0) revert ZeroRefund();
        bytes32 channelId = getChannelId(config);
        refundNonce[channelId]++;
        ChannelState storage ch = channels[channelId];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 refunded = amount > available ? available : amount;
        if (refunded == 0) return;
        ch.balance -= refunded;
        WithdrawalState storage ws = pendingWithdrawals[channelId];
        if (ws.initiatedAt != 0) {
            if (refunded >= ws.amount) {
                ws.amount = 0;
                ws.initiatedAt = 0;
            } else {
                ws.amount -= refunded;
            }
        }
        emit Refunded(channelId, msg.sender, refunded);
        if (ch.balance == 0 && ch.totalClaimed == 0) emit ChannelClosed(channelId, config);
        _send(config.token, config.payer, refunded);
    }

    function _send(address token, address to, uint256 amount) internal {
        require(IReceiveWithAuthorization(token).transfer(to, amount), "transfer failed");
    }

    function _typed(bytes32 structHash) internal view returns (bytes32) {
        bytes32 domain = keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("x402 Batch Settlement"), keccak256("1"), block.chainid, address(this)));
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    /// A 65-byte ECDSA signature's signer (low s only), or address(0).
    function _recover(bytes32 digest, bytes memory signature) internal pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 32))
            s := mload(add(signature, 64))
            v := byte(0, mload(add(signature, 96)))
        }
        if (v < 27) v += 27;
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return address(0);
        return ecrecover(digest, v, r, s);
    }
}

/// Pulls a deposit with the payer's ERC-3009 ReceiveWithAuthorization (to = this collector, nonce =
/// keccak256(abi.encode(channelId, salt))) and forwards it to the escrow; only the escrow may call it.
contract StandInERC3009DepositCollector {
    address public constant x402BatchSettlement = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    error OnlyX402BatchSettlement();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData) external {
        if (msg.sender != x402BatchSettlement) revert OnlyX402BatchSettlement();
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) = abi.decode(collectorData, (uint256, uint256, uint256, bytes));
        IReceiveWithAuthorization(token).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, keccak256(abi.encode(channelId, salt)), signature
        );
        require(IReceiveWithAuthorization(token).transfer(x402BatchSettlement, amount), "transfer failed");
    }
}
