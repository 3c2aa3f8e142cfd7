// SPDX-License-Identifier: MIT
// A minimal ERC-20 for tests and the demo (never for real money): the deployer may mint, and may
// pause transfers so that a payout reverts on chain. Compiled by scripts/compile-test-token.ts into
// src/server/chain/evm/test-token.json.
pragma solidity ^0.8.20;

contract TestToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    address public immutable owner;
    uint256 public totalSupply;
    bool public transfersPaused;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        owner = msg.sender;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "TestToken: not the owner");
        _;
    }

    /// Creates `value` new units for `to`.
    function mint(address to, uint256 value) external onlyOwner {
        require(to != address(0), "TestToken: mint to the zero address");
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    /// While paused, every transfer reverts (what a payout-revert test needs).
    function setTransfersPaused(bool paused) external onlyOwner {
        transfersPaused = paused;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// Several transfers in one transaction (as exchanges' batch payouts do): one log each.
    function transferBatch(address[] calldata to, uint256[] calldata values) external returns (bool) {
        require(to.length == values.length, "TestToken: lengths differ");
        for (uint256 i = 0; i < to.length; i++) _transfer(msg.sender, to[i], values[i]);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "TestToken: allowance too low");
            allowance[from][msg.sender] = allowed - value;
        }
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) private {
        require(!transfersPaused, "TestToken: transfers are paused");
        require(to != address(0), "TestToken: transfer to the zero address");
        uint256 balance = balanceOf[from];
        require(balance >= value, "TestToken: balance too low");
        unchecked {
            balanceOf[from] = balance - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
