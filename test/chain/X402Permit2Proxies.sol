// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Test stand-ins for x402's Permit2 proxies (the spenders that @x402/evm's exact-Permit2 and upto
// schemes name in every Permit2 signature). They are placed with anvil_setCode at the canonical
// addresses @x402/evm uses (see test/chain/permit2.ts for why these are stand-ins and not x402's build).
// Same ABI as x402's contracts (functions, events, custom errors, so @x402/evm's ABI encodes and decodes
// against them), same checks and in the same order, so a facilitator sees the same reverts:
//   upto  settle:  amount <= permitted (AmountExceedsPermitted), msg.sender == witness.facilitator
//                  (UnauthorizedFacilitator), then the shared checks below.
//   exact settle:  moves exactly permit.permitted.amount, then the shared checks.
//   shared:        amount != 0 (InvalidAmount), owner != 0 (InvalidOwner), to != 0 (InvalidDestination),
//                  block.timestamp >= validAfter (PaymentTooEarly); then Permit2's permitWitnessTransferFrom
//                  with the witness hash and type string, which checks the signature, deadline and nonce.
//   settleWithPermit: first an EIP-2612 permit for Permit2 (value must equal the permitted amount,
//                  Permit2612AmountMismatch); a failing permit() only logs, since the approval may exist.
// A transient-storage lock stands in for OpenZeppelin's ReentrancyGuard (same error), so the code needs no
// constructor-set storage slot (anvil_setCode copies code, not storage).

interface IPermit2SignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

interface IERC2612 {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external;
}

abstract contract Permit2ProxyStandIn {
    IPermit2SignatureTransfer public immutable PERMIT2;

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    event Settled();
    event SettledWithPermit();
    event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason);
    event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode);
    event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data);

    error InvalidPermit2Address();
    error InvalidDestination();
    error PaymentTooEarly();
    error InvalidOwner();
    error InvalidAmount();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();

    /// The transient slot of the reentrancy lock.
    bytes32 private constant LOCK = keccak256("agentbank.test.Permit2ProxyStandIn.lock");

    constructor(address permit2) {
        if (permit2 == address(0)) revert InvalidPermit2Address();
        PERMIT2 = IPermit2SignatureTransfer(permit2);
    }

    modifier locked() {
        bytes32 slot = LOCK;
        uint256 held;
        assembly {
            held := tload(slot)
        }
        if (held != 0) revert ReentrancyGuardReentrantCall();
        assembly {
            tstore(slot, 1)
        }
        _;
        assembly {
            tstore(slot, 0)
        }
    }

    function _transfer(
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        address to,
        uint256 validAfter,
        bytes32 witnessHash,
        string memory witnessTypeString,
        bytes calldata signature
    ) internal {
        if (amount == 0) revert InvalidAmount();
        if (owner == address(0)) revert InvalidOwner();
        if (to == address(0)) revert InvalidDestination();
        if (block.timestamp < validAfter) revert PaymentTooEarly();
        PERMIT2.permitWitnessTransferFrom(
            permit,
            IPermit2SignatureTransfer.SignatureTransferDetails({to: to, requestedAmount: amount}),
            owner,
            witnessHash,
            witnessTypeString,
            signature
        );
    }

    function _tryPermit(address token, address owner, EIP2612Permit calldata permit2612, uint256 permitted) internal {
        if (permit2612.value != permitted) revert Permit2612AmountMismatch();
        try IERC2612(token).permit(owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s) {}
        catch Error(string memory reason) {
            emit EIP2612PermitFailedWithReason(token, owner, reason);
        } catch Panic(uint256 code) {
            emit EIP2612PermitFailedWithPanic(token, owner, code);
        } catch (bytes memory data) {
            emit EIP2612PermitFailedWithData(token, owner, data);
        }
    }
}

/// Stand-in for x402UptoPermit2Proxy: the facilitator named in the witness settles any amount up to the permit.
contract X402UptoPermit2ProxyStandIn is Permit2ProxyStandIn {
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    error UnauthorizedFacilitator();
    error AmountExceedsPermitted();

    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    constructor(address permit2) Permit2ProxyStandIn(permit2) {}

    function settle(
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external locked {
        _checkCaller(permit, amount, witness);
        _transfer(permit, amount, owner, witness.to, witness.validAfter, _hash(witness), WITNESS_TYPE_STRING, signature);
        emit Settled();
    }

    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external locked {
        _checkCaller(permit, amount, witness);
        _tryPermit(permit.permitted.token, owner, permit2612, permit.permitted.amount);
        _transfer(permit, amount, owner, witness.to, witness.validAfter, _hash(witness), WITNESS_TYPE_STRING, signature);
        emit SettledWithPermit();
    }

    function _checkCaller(IPermit2SignatureTransfer.PermitTransferFrom calldata permit, uint256 amount, Witness calldata witness) private view {
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
    }

    function _hash(Witness calldata witness) private pure returns (bytes32) {
        return keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
    }
}

/// Stand-in for x402ExactPermit2Proxy: anyone may settle, always for exactly the permitted amount.
contract X402ExactPermit2ProxyStandIn is Permit2ProxyStandIn {
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,uint256 validAfter)");

    struct Witness {
        address to;
        uint256 validAfter;
    }

    constructor(address permit2) Permit2ProxyStandIn(permit2) {}

    function settle(
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external locked {
        _transfer(permit, permit.permitted.amount, owner, witness.to, witness.validAfter, _hash(witness), WITNESS_TYPE_STRING, signature);
        emit Settled();
    }

    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        IPermit2SignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external locked {
        _tryPermit(permit.permitted.token, owner, permit2612, permit.permitted.amount);
        _transfer(permit, permit.permitted.amount, owner, witness.to, witness.validAfter, _hash(witness), WITNESS_TYPE_STRING, signature);
        emit SettledWithPermit();
    }

    function _hash(Witness calldata witness) private pure returns (bytes32) {
        return keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.validAfter));
    }
}
