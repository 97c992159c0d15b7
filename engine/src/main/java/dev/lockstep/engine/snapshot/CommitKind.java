package dev.lockstep.engine.snapshot;

/** What a snapshot did to the table. */
public enum CommitKind {
  /** Added new data files. */
  APPEND,
  /** Replaced files by their compacted form; the table's content is unchanged. */
  COMPACT,
  /** Replaced every file of some partitions (or the whole table) by new ones. */
  OVERWRITE
}
