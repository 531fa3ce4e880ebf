// Placeholder: filled by its resource owner.
export {};
