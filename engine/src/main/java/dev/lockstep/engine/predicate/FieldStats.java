package dev.lockstep.engine.predicate;

import java.io.Serializable;

/**
 * What is known about one column of a set of rows (a data file, a row group, a manifest's
 * partitions): bounds of its non-null values and its null count, each {@code null} when unknown.
 * {@code min} is at most every non-null value and {@code max} at least every one (a truncated
 * string bound need not be a value of the column); when no value is non-null both are {@code null}.
 *
 * @param min a lower bound of the non-null values, or {@code null} (unknown, or no such value)
 * @param max an upper bound of the non-null values, or {@code null}
 * @param nullCount the number of NULLs, or {@code null} when unknown
 */
public record FieldStats(Object min, Object max, Long nullCount) implements Serializable {

  /** Nothing known. */
  public static final FieldStats UNKNOWN = new FieldStats(null, null, null);
}
