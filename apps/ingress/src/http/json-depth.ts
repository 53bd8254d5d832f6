/** Admin bodies are small records: no valid one nests deeper than this (arrays and objects). */
export const ADMIN_MAX_JSON_DEPTH = 32;
