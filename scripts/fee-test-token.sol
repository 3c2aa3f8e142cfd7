// SPDX-License-Identifier: MIT
// A fee-charging ERC-20 for tests (never for real money): each transfer delivers its value less a fee
// (feeBps of 10,000) and sends the fee to the owner, in two Transfer logs, as fee-on-transfer tokens
// do. What a payout's recipient really received is only in the receipt. Compiled by
// scripts/compile-test-token.ts into src/server/chain/evm/fee-test-token.json.
pragma solidity ^0.8.20;

contract FeeTestToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    address public immutable owner;
    uint16 public immutable feeBps;
    uint256 public totalSupply;

    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint16 feeBps_) {
        require(feeBps_ <= 10_000, "FeeTestToken: fee above 100%");
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        feeBps = feeBps_;
        owner = msg.sender;
    }

    /// Creates `value` new units for `to` (the owner only).
    function mint(address to, uint256 value) external {
        require(msg.sender == owner, "FeeTestToken: not the owner");
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(to != address(0), "FeeTestToken: transfer to the zero address");
        uint256 balance = balanceOf[msg.sender];
        require(balance >= value, "FeeTestToken: balance too low");
        uint256 fee = (value * feeBps) / 10_000;
        unchecked {
            balanceOf[msg.sender] = balance - value;
        }
        balanceOf[to] += value - fee;
        emit Transfer(msg.sender, to, value - fee);
        if (fee > 0) {
            balanceOf[owner] += fee;
            emit Transfer(msg.sender, owner, fee);
        }
        return true;
    }
}
