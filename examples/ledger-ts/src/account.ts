// The bank account of the reference ledger: its state, its inbound events
// (account creation, owner update, accepted transactions), its outbound
// event (accountOverdrawn), and the rules between them. The same rules and
// the same JSON as the C++ example (examples/ledger/account.cc).
import { Json, Processor, Rejected, Rules, StateUpdaterInput } from './entity.js';

// State: the current "BankAccount" (its state record, in these field names).
export interface BankAccount {
  id: string;
  ownerFirst: string;
  ownerLast: string;
  balance: number;
  minimumBalance: number;
}
export const BankAccountRecordName = 'BANK_ACCOUNT';

// Inbound events.
export interface AccountCreation {
  id: string;
}
export const AccountCreationRecordName = 'ACCOUNT_CREATION';

export interface AccountUpdate {
  ownerFirst: string;
  ownerLast: string;
}
export const AccountUpdateRecordName = 'ACCOUNT_UPDATE';

export interface Transaction {
  desc: string;
  amount: number;
}
export const TransactionRecordName = 'TRANSACTION_ACCEPTED';

// Outbound event: published when a transaction takes the balance from zero
// or more to under zero (allowed, thanks to the overdraft).
export interface AccountOverdrawn {
  accountId: string;
}
export const AccountOverdrawnEventName = 'accountOverdrawn';

// New accounts start at zero, with an overdraft. A new object each time:
// the rules change the state they are given.
export const initialAccount = (): BankAccount => ({
  id: '',
  ownerFirst: '',
  ownerLast: '',
  balance: 0,
  minimumBalance: -1000,
});

// The rules of the account: a transaction that would take the balance under
// the minimum is rejected ("insufficient funds"); the one that takes it from
// zero or more to under zero publishes accountOverdrawn.
export function accountRules(): Rules<BankAccount> {
  const rules: Rules<BankAccount> = new Map();
  rules.set(
    AccountCreationRecordName,
    (input: StateUpdaterInput<BankAccount, AccountCreation>): BankAccount => {
      const e = decodeAccountCreation(input.current);
      input.state.id = e.id;
      return input.state;
    },
  );
  rules.set(
    AccountUpdateRecordName,
    (input: StateUpdaterInput<BankAccount, AccountUpdate>): BankAccount => {
      const e = decodeAccountUpdate(input.current);
      input.state.ownerFirst = e.ownerFirst;
      input.state.ownerLast = e.ownerLast;
      return input.state;
    },
  );
  rules.set(
    TransactionRecordName,
    (input: StateUpdaterInput<BankAccount, Transaction>): BankAccount => {
      const t = decodeTransaction(input.current);
      const previousBalance = input.state.balance;
      const newBalance = previousBalance + t.amount;
      // Without enough overdraft, the transaction is refused: nothing is written.
      if (newBalance < input.state.minimumBalance) throw new Rejected('insufficient funds');
      // The transaction that takes the account overdrawn notifies.
      if (previousBalance >= 0 && newBalance < 0) {
        const overdrawn: AccountOverdrawn = { accountId: input.state.id };
        input.publish(AccountOverdrawnEventName, { ...overdrawn });
      }
      input.state.balance = newBalance;
      return input.state;
    },
  );
  return rules;
}

export function accountProcessor(): Processor<BankAccount> {
  return new Processor(accountRules(), initialAccount, {
    encode: encodeBankAccount,
    decode: decodeBankAccount,
  });
}

// ---------------------------------------------------------------------------
// JSON codecs: the reference's field names, in this order (the state record
// and the printed lines are byte for byte those of the C++ example).

export function encodeBankAccount(a: BankAccount): Json {
  return {
    id: a.id,
    ownerFirst: a.ownerFirst,
    ownerLast: a.ownerLast,
    balance: a.balance,
    minimumBalance: a.minimumBalance,
  };
}

export function decodeBankAccount(data: Json): BankAccount {
  const o = object(data);
  return {
    id: string(o, 'id'),
    ownerFirst: string(o, 'ownerFirst'),
    ownerLast: string(o, 'ownerLast'),
    balance: integer(o, 'balance'),
    minimumBalance: integer(o, 'minimumBalance'),
  };
}

export function decodeAccountCreation(data: unknown): AccountCreation {
  const o = object(data);
  return { id: string(o, 'id') };
}

export function decodeAccountUpdate(data: unknown): AccountUpdate {
  const o = object(data);
  return { ownerFirst: string(o, 'ownerFirst'), ownerLast: string(o, 'ownerLast') };
}

export function decodeTransaction(data: unknown): Transaction {
  const o = object(data);
  return { desc: string(o, 'desc'), amount: integer(o, 'amount') };
}

// An event's data that a rule cannot read: the command is invalid (or, for
// a stored event, the load fails), as with the C++ codecs.
export class InvalidData extends Error {
  constructor(
    public readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'InvalidData';
  }
}

function object(data: unknown): { [key: string]: unknown } {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new InvalidData('data', 'not a JSON object');
  return data as { [key: string]: unknown };
}

function string(o: { [key: string]: unknown }, field: string): string {
  const v = o[field];
  if (typeof v !== 'string') throw new InvalidData(field, 'missing or not a string');
  return v;
}

function integer(o: { [key: string]: unknown }, field: string): number {
  const v = o[field];
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw new InvalidData(field, 'missing or not an integer');
  return v;
}
