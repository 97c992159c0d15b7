package dev.lockstep.fs.conditional;

/** Whose object is at a key, as far as reading it back tells. */
public enum Ownership {
  /** Our write id (or, where the store drops metadata, our bytes): our write landed. */
  OURS,
  /** Another write's object. */
  THEIRS,
  /** No object at the key. */
  ABSENT,
  /** The read-back failed or could not tell. */
  UNKNOWN
}
