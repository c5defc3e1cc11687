export const LORE_VERSION = "0.1.0"
