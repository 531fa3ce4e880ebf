// zod → our validation_error, so every input failure has the same shape, in the catalogue's
// words: zod's own messages are replaced wherever a schema does not give its own.
import { z } from 'zod';
import { type ErrorDetails, validationError } from './errors.js';
import { issueMessage } from './messages.js';

z.config({ customError: (issue) => issueMessage(issue as Parameters<typeof issueMessage>[0]) });

export function detailsFromZod(error: z.ZodError, prefix: (string | number)[] = []): ErrorDetails {
  const details: ErrorDetails = {};
  for (const issue of error.issues) {
    const key = [...prefix, ...issue.path].join('.') || '_';
    (details[key] ??= []).push(issue.message);
  }
  return details;
}

/** Parses `input` or throws 422 validation_error with a message list per field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(detailsFromZod(parsed.error));
  return parsed.data;
}
