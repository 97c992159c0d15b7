package dev.lockstep.engine.manifest;

/** Whether a manifest entry adds a data file to the table or removes it. */
public enum FileKind {
  ADD,
  DELETE
}
