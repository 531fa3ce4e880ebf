// `loyalty <command>` (also `npm run cli -- <command>`). With --json every command prints
// exactly one JSON document on stdout: its result, or { error: { code, message, details? } }.
// A refusal of the domain is told in the words the admin API answers it in (the message
// catalogue's), with its code.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { connect } from '../db/database.js';
import { DatabaseStartError } from '../db/errors.js';
import { AppError } from '../domain/shared/errors.js';
import { inMerchantWords } from '../domain/shared/messages.js';
import { type Options, UsageError } from './command.js';
import { commands } from './commands.js';
import { runWorker } from './worker.js';

function help() {
  const lines = Object.values(commands).map((c) => `  loyalty ${c.usage.padEnd(58)} ${c.summary}`);
  return ['Usage:', ...lines, '', 'Every command accepts --json to print one JSON document; reports also --csv.'].join('\n');
}

function findCommand(positionals: string[]) {
  const two = positionals.slice(0, 2).join(' ');
  if (commands[two]) return { name: two, rest: positionals.slice(2) };
  const one = positionals[0] ?? '';
  if (commands[one]) return { name: one, rest: positionals.slice(1) };
  return undefined;
}

async function main(argv: string[]) {
  let json = argv.includes('--json');
  const fail = (code: string, message: string, details?: unknown, exitCode = 1) => {
    if (json) console.log(JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } }));
    console.error(`error (${code}): ${message}`);
    if (details) console.error(JSON.stringify(details, null, 2));
    process.exitCode = exitCode;
  };
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        merchant: { type: 'string' },
        slug: { type: 'string' },
        name: { type: 'string' },
        type: { type: 'string' },
        scope: { type: 'string', multiple: true },
        file: { type: 'string' },
        'points-pending-days': { type: 'string' },
        origin: { type: 'string', multiple: true },
        url: { type: 'string' },
        event: { type: 'string', multiple: true },
        description: { type: 'string' },
        endpoint: { type: 'string' },
        status: { type: 'string' },
        page: { type: 'string' },
        'overlap-hours': { type: 'string' },
        enable: { type: 'boolean' },
        disable: { type: 'boolean' },
        timezone: { type: 'string' },
        at: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        group: { type: 'string' },
        csv: { type: 'boolean' },
        'award-points': { type: 'boolean' },
        by: { type: 'string' },
      },
    });
    json = values.json ?? false;
    const found = findCommand(positionals);
    if (values.help || positionals.length === 0) {
      console.log(help());
      return;
    }
    if (!found) throw new UsageError(`unknown command "${positionals.join(' ')}"\n\n${help()}`);
    const command = commands[found.name]!;
    if (values.csv && !command.csv) throw new UsageError(`${found.name} has no --csv output`);
    const config = loadConfig();
    if (found.name === 'worker') return await runWorker(config);
    const { db, applied, close } = await connect(config);
    try {
      const result = await command.run(db, { values, positionals: found.rest } as Options, applied);
      console.log(json ? JSON.stringify(result) : values.csv ? command.csv!(result) : command.text(result));
    } finally {
      await close();
    }
  } catch (err) {
    if (err instanceof AppError) {
      const { message, details } = inMerchantWords(err.code, err.message, err.details);
      return fail(err.code, message, details);
    }
    if (err instanceof UsageError || err instanceof ConfigError) return fail('usage_error', err.message, undefined, 2);
    if (err instanceof DatabaseStartError) return fail('service_unavailable', err.message);
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      return fail('usage_error', err.message, undefined, 2);
    }
    fail('internal_error', err instanceof Error ? err.message : String(err));
  }
}

await main(process.argv.slice(2));
