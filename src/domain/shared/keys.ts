// A tenant row's primary key is (merchant_id, id): the unique lookup of one row names its
// merchant too, so on a sharded cluster it goes to the one shard that holds it.

/** `where` of a findUnique/update/delete of one tenant row: `db.reward.update({ where: rowKey(m, id) })`. */
export const rowKey = (merchantId: string, id: string) => ({ merchantId_id: { merchantId, id } });
