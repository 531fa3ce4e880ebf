// Each GraphQL document compiled once with graphql-jit and run compiled from then on: SOFA
// runs the same few documents for ever, and Yoga's parse cache bounds the others. A request
// whose variables graphql-js cannot coerce runs uncompiled, so its errors name the variable
// as they always have (graphql-jit's name the innermost input field instead).

import type { Plugin } from '@envelop/core';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { type ExecutionArgs, getOperationAST } from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';

function variablesCoerce({ schema, document, operationName, variableValues }: ExecutionArgs): boolean {
  const definitions = getOperationAST(document, operationName)?.variableDefinitions;
  if (!definitions?.length) return true;
  return !('errors' in getVariableValues(schema, definitions, variableValues ?? {}));
}

export function useCompiledExecution(): Plugin {
  return useGraphQlJit({}, { enableIf: variablesCoerce });
}
