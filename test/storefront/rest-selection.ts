// What REST answers of a type, as a GraphQL selection set: a graph link's answer can then be
// compared with its REST twin's whole.
import { getNamedType, isLeafType, isObjectType } from 'graphql';
import { restSchema } from '../../src/graphql/public.js';

/** Every field of a type as REST answers it (REST's schema has no links), as a selection set. */
export function restSelection(typeName: string): string {
  const type = restSchema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is no object type`);
  const fields = Object.values(type.getFields()).map((f) => {
    const named = getNamedType(f.type);
    return isLeafType(named) ? f.name : `${f.name} ${restSelection(named.name)}`;
  });
  return `{ ${fields.join(' ')} }`;
}
