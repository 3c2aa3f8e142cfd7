/**
 * What a `paylink` command says of itself, beside the events its servers log: its start banner, the
 * report of a one-shot command (`keys create`, `keys xpub`, `sweep`), a refusal to start. In the
 * process's log format (`log.ts`): at a terminal, the plain text a person reads, as it always was; off
 * a terminal (or `PAYLINK_LOG_FORMAT=json`), one JSON line each with `time`, `level`, `code`, `message`
 * and the line's fields. The banner goes to stdout, the rest to stderr. What a command prints as data
 * for a script (the key of `keys create`, the xpub of `keys xpub`) is not written through here: it
 * stays alone on stdout.
 */
import { defaultLogger, resolveLogFormat, startupLogger, type LogFields, type LogFormat, type LogLevel } from './log.js';

/** A command's own lines (see the module comment). */
export interface CommandOutput {
  readonly format: LogFormat;
  /** A line of the command's own output on stdout: its start banner, its report. */
  print(code: string, text: string, fields?: LogFields): void;
  /** A line of a report or a refusal (stderr). */
  say(level: LogLevel, code: string, text: string, fields?: LogFields): void;
}

/** The command output in `format` (default: the process's; a bad `PAYLINK_LOG_FORMAT` falls back to JSON). */
export function commandOutput(format: LogFormat = processFormat()): CommandOutput {
  return {
    format,
    print(code, text, fields) {
      if (format === 'pretty') process.stdout.write(`${text}\n`);
      else startupLogger.info(code, text, fields);
    },
    say(level, code, text, fields) {
      if (format === 'pretty') process.stderr.write(`${text}\n`);
      else defaultLogger[level](code, text, fields);
    },
  };
}

function processFormat(): LogFormat {
  try {
    return resolveLogFormat();
  } catch {
    return 'json';
  }
}
