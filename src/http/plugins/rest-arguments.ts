// REST: a route's arguments checked before SOFA runs, which would coerce them without naming
// the failing one; 422 validation_error with the failing fields instead.
import type { Plugin } from 'graphql-yoga';
import { validationError } from '../../domain/shared/errors.js';
import { checkRestArguments } from '../rest/arguments.js';
import { checkRequest } from './checks.js';

export function useRestArguments(): Plugin {
  return {
    onRequest: checkRequest(({ url, state }) => {
      if (!state.route) return;
      const details = checkRestArguments(state.route.route.graphqlField, state.body, url, state.route.params);
      if (details) throw validationError(details);
    }),
  };
}
