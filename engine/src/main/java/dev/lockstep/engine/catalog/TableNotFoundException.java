package dev.lockstep.engine.catalog;

import java.io.IOException;

/** The table does not exist in the warehouse. Create it first, or check the name. */
public class TableNotFoundException extends IOException {
  public TableNotFoundException(Identifier identifier, String location) {
    super("Table " + identifier + " does not exist (no schema under " + location + ").");
  }
}
