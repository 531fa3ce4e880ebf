// Each GraphQL document compiled once with graphql-jit and run compiled from then on: SOFA
// runs the same few documents for ever, and Yoga's parse cache bounds the others. The compiled
// query coerces its variables itself; when it refuses them it answers errors and no data (it
// never ran), and the request runs again uncompiled, so its errors name the variable as
// graphql-js words them (graphql-jit's name the innermost input field instead). Coercing
// every request's variables with graphql-js first, to choose, cost each request a second
// coercion.

import type { ExecuteFunction, Plugin } from '@envelop/core';
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { ExecutionResult } from 'graphql';

type Executed = ReturnType<ExecuteFunction>;

/** A compiled query that did not run: its variables were refused (or it could not be compiled). */
const didNotRun = (result: Awaited<Executed>) => !(Symbol.asyncIterator in result) && !('data' in (result as ExecutionResult));

export function useCompiledExecution(): Plugin {
  const jit = useGraphQlJit();
  return {
    onExecute(payload) {
      const uncompiled = payload.executeFn;
      const orUncompiled =
        (compiled: ExecuteFunction): ExecuteFunction =>
        (execution) => {
          const rerun = (result: Awaited<Executed>): Executed => (didNotRun(result) ? uncompiled(execution) : result);
          const executed = compiled(execution);
          return executed instanceof Promise ? executed.then(rerun) : rerun(executed as Awaited<Executed>);
        };
      return jit.onExecute?.({ ...payload, setExecuteFn: (compiled) => payload.setExecuteFn(orUncompiled(compiled)) });
    },
  };
}
