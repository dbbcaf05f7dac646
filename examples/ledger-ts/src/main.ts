#!/usr/bin/env node
// ledger-ts: the bank-account ledger of the reference design, end to end,
// on an indelible server through @indelible/client: rules with an
// overdraft, an outbound accountOverdrawn event, appendTo, recalculate.
// Prints what happens in the reference's format, one line per step: the
// same lines as the C++ example (indelible-ledger) for the same account id.
//
//   node dist/main.js --url http://127.0.0.1:2113 --account-id 123
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { Client } from '@indelible/client';

import {
  AccountCreation,
  AccountCreationRecordName,
  AccountUpdate,
  AccountUpdateRecordName,
  BankAccount,
  BankAccountRecordName,
  Transaction,
  TransactionRecordName,
  accountProcessor,
  encodeBankAccount,
} from './account.js';
import { Change, Entity, EntityError, Event } from './entity.js';

const usage = `ledger-ts: the reference bank-account ledger on an indelible server
Usage: node dist/main.js [--url URL] [--account-id ID] [--api-key-file FILE] [--ca-file FILE]

  --url URL            the server (default http://127.0.0.1:2113)
  --account-id ID      account id (default: random)
  --api-key-file FILE  a file holding the API key (or JWT) to send; default: $INDELIBLE_API_KEY
  --ca-file FILE       with an https URL: PEM certificates to trust
`;

class StepFailed extends Error {}

async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    process.stderr.write(`ledger-ts: ${name} failed: ${detail}\n`);
    throw new StepFailed(name);
  }
}

function printPublished(change: Change<BankAccount>): void {
  for (const published of change.newOutboundEvents)
    console.log(`Published event: ${JSON.stringify({ type: published.type, data: published.event })}`);
}

async function run(client: Client, accountId: string): Promise<void> {
  // Can now create a ledger "facet": BANK_ACCOUNT/<id> streams on the server.
  const accounts = new Entity<BankAccount>(client, BankAccountRecordName, accountProcessor());
  const stream = accounts.streamOf(accountId);

  // A new account, and its owner's name.
  await step('creating the account', () =>
    accounts.append(
      accountId,
      new Event<AccountCreation>(AccountCreationRecordName, { id: accountId }),
    ),
  );
  await step('updating the owner', () =>
    accounts.append(
      accountId,
      new Event<AccountUpdate>(AccountUpdateRecordName, { ownerFirst: 'John', ownerLast: 'Brown' }),
    ),
  );

  // Two transactions in one append; the second takes the account overdrawn.
  const ab = await step('transactions A and B', () =>
    accounts.append(
      accountId,
      new Event<Transaction>(TransactionRecordName, { desc: 'Transaction A', amount: 200 }),
      new Event<Transaction>(TransactionRecordName, { desc: 'Transaction B', amount: -300 }),
    ),
  );
  printPublished(ab);

  // Another transaction, then one appended to the state in hand (no read).
  const c = await step('transaction C', () =>
    accounts.append(
      accountId,
      new Event<Transaction>(TransactionRecordName, { desc: 'Transaction C', amount: 50 }),
    ),
  );
  printPublished(c);
  const d = await step('transaction D', () =>
    accounts.appendTo(
      c,
      new Event<Transaction>(TransactionRecordName, { desc: 'Transaction D', amount: 25 }),
    ),
  );
  printPublished(d);

  const account = await step('reading the account', () => accounts.get(accountId));
  console.log(`Account details: ${JSON.stringify(encodeBankAccount(account.state))}`);

  // Verify by replaying every event; then recalculate with one more.
  const verified = await step('recalculating', () => accounts.recalculate(accountId));
  console.log(`Verified balance: ${JSON.stringify(encodeBankAccount(verified.state))}`);
  const finalBalance = await step('recalculating with transaction E', () =>
    accounts.recalculate(
      accountId,
      new Event<Transaction>(TransactionRecordName, { desc: 'Transaction E', amount: 25 }),
    ),
  );
  console.log(`Final balance: ${JSON.stringify(encodeBankAccount(finalBalance.state))}`);

  // Past the overdraft: the rule rejects it and nothing is written.
  const reason = await step('rejecting transaction F', async () => {
    try {
      await accounts.append(
        accountId,
        new Event<Transaction>(TransactionRecordName, { desc: 'Transaction F', amount: -2000 }),
      );
    } catch (err) {
      if (err instanceof EntityError && err.code === 'rejected') return err.message;
      throw err;
    }
    throw new Error('accepted');
  });
  const head = await step('reading the head', () => client.head(stream));
  console.log(`Rejected transaction: ${reason} (${stream} stays at version ${head.version})`);
  console.log('complete');
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: 'string', default: 'http://127.0.0.1:2113' },
        'account-id': { type: 'string' },
        'api-key-file': { type: 'string' },
        'ca-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`ledger-ts: ${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const accountId = values['account-id'] ?? String(randomInt(1000000));
  const apiKey =
    values['api-key-file'] !== undefined
      ? readFileSync(values['api-key-file'], 'utf8').trim()
      : process.env.INDELIBLE_API_KEY || undefined;
  const ca = values['ca-file'] !== undefined ? readFileSync(values['ca-file'], 'utf8') : undefined;
  const client = new Client(values.url!, { apiKey, ca });
  try {
    await run(client, accountId);
    return 0;
  } catch (err) {
    if (err instanceof StepFailed) return 1;
    throw err;
  } finally {
    client.close();
  }
}

main().then(
  (rc) => {
    process.exitCode = rc;
  },
  (err) => {
    process.stderr.write(`ledger-ts: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
