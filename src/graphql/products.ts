// The product display fields rewards and earning rules share: the name and image of the product
// they name, as the merchant's store calls it, so a person reads a name rather than an id. They
// are the admin schema's only: the public answers keep the spec's shapes.
export const PRODUCT_NAME = "The product's display name, as the store names it (shown instead of its id)";
export const PRODUCT_IMAGE = 'An image of the product (an https address)';
