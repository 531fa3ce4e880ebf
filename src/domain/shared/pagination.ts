// Page-number pagination shared by every list (spec 2.4 and section 8).
import { z } from 'zod';
import { parseInput } from './validation.js';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;

export interface PageArgs {
  page?: number | null;
  per_page?: number | null;
}

export interface Page {
  page: number;
  perPage: number;
  skip: number;
  take: number;
}

const pageSchema = z.object({
  page: z.number().int().min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').default(1),
  per_page: z
    .number()
    .int()
    .min(1, `must be between 1 and ${MAX_PER_PAGE}`)
    .max(MAX_PER_PAGE, `must be between 1 and ${MAX_PER_PAGE}`)
    .default(DEFAULT_PER_PAGE),
});

export function toPage(args: PageArgs): Page {
  const { page, per_page } = parseInput(pageSchema, {
    page: args.page ?? undefined,
    per_page: args.per_page ?? undefined,
  });
  return { page, perPage: per_page, skip: (page - 1) * per_page, take: per_page };
}

export interface Paginated<T> {
  data: T[];
  meta: { pagination: PaginationMeta };
}

export interface PaginationMeta {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  has_more: boolean;
}

export function paginated<T>(page: Page, data: T[], total: number): Paginated<T> {
  const lastPage = Math.max(1, Math.ceil(total / page.perPage));
  return {
    data,
    meta: {
      pagination: {
        current_page: page.page,
        per_page: page.perPage,
        total,
        last_page: lastPage,
        has_more: page.page < lastPage,
      },
    },
  };
}

/** Lists are newest first unless said otherwise (DESIGN.md); ties go by id, so pages never overlap. */
export const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/** Runs the page query and the count together. */
export async function paginate<T>(
  args: PageArgs,
  find: (p: { skip: number; take: number }) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Paginated<T>> {
  const page = toPage(args);
  const [data, total] = await Promise.all([find({ skip: page.skip, take: page.take }), count()]);
  return paginated(page, data, total);
}
