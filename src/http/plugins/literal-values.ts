// A value written in the document that its scalar refuses (an impossible date) is the client's
// invalid input, as the same value sent in a variable is: the scalar reports it as a
// validation_error (graphql/scalars.ts), and this plugin names where it stands, the argument and
// the path inside it (`input.starts_at`, `dates.1`), in `details`, as a variable is named, and
// words it as the face words its errors (Yoga's maskError never sees a validation error).
import { type ASTNode, BREAK, type DocumentNode, GraphQLError, Kind, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export function useLiteralValues(words: (error: GraphQLError) => Error = (error) => error): Plugin {
  return {
    onValidate({ params: { documentAST } }) {
      return ({ valid, result, setResult }) => {
        if (valid || !result.some(isLiteralValueError)) return;
        setResult(
          result.map((error) => {
            if (!isLiteralValueError(error) || error.extensions.details) return error;
            const at = literalPath(documentAST, error.nodes![0]!) ?? 'query';
            (error.extensions as Record<string, unknown>).details = { [at]: [error.message] };
            return words(error) as GraphQLError;
          }),
        );
      };
    },
  };
}

const isLiteralValueError = (error: unknown): error is GraphQLError =>
  error instanceof GraphQLError && error.extensions.code === 'validation_error' && Boolean(error.nodes?.length);

/** Where `target` stands: argument (or variable default), input fields and list indices, dotted. */
function literalPath(document: DocumentNode, target: ASTNode): string | undefined {
  let keys: readonly (string | number)[] | undefined;
  visit(document, {
    enter(node, _key, _parent, path) {
      if (node !== target) return undefined;
      keys = [...path];
      return BREAK;
    },
  });
  if (!keys) return undefined;
  const labels: string[] = [];
  let at: unknown = document;
  let list = false;
  for (const key of keys) {
    at = (at as Record<string | number, unknown>)[key];
    if (typeof key === 'number' && list) labels.push(String(key));
    if (!at || Array.isArray(at)) continue;
    const node = at as ASTNode;
    if (node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) labels.push(node.name.value);
    if (node.kind === Kind.VARIABLE_DEFINITION) labels.push(node.variable.name.value);
    list = node.kind === Kind.LIST;
  }
  return labels.join('.') || undefined;
}
