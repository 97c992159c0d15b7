package dev.lockstep.engine.catalog;

import java.io.IOException;

/** A table of that name exists already; nothing was changed. Load it, or drop it first. */
public class TableExistsException extends IOException {
  public TableExistsException(Identifier identifier, String location) {
    super("Table " + identifier + " already exists at " + location + ".");
  }
}
