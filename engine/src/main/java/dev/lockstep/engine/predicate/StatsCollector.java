package dev.lockstep.engine.predicate;

import dev.lockstep.engine.data.GenericRow;
import java.util.Arrays;

/**
 * Collects {@link FieldStats} of the first {@code modes.length} columns of the rows written to one
 * file, each column in its {@link StatsMode}. Not thread-safe.
 */
public final class StatsCollector {

  private final StatsMode[] modes;
  private final Object[] min;
  private final Object[] max;
  private final long[] nulls;
  private long rows;

  public StatsCollector(StatsMode[] modes) {
    this.modes = modes.clone();
    this.min = new Object[modes.length];
    this.max = new Object[modes.length];
    this.nulls = new long[modes.length];
  }

  public void update(GenericRow row) {
    rows++;
    for (int i = 0; i < modes.length; i++) {
      StatsMode.Kind kind = modes[i].kind();
      if (kind == StatsMode.Kind.NONE) {
        continue;
      }
      Object v = row.get(i);
      if (v == null) {
        nulls[i]++;
      } else if (kind != StatsMode.Kind.COUNTS) {
        if (min[i] == null || Values.compare(v, min[i]) < 0) {
          min[i] = v;
        }
        if (max[i] == null || Values.compare(v, max[i]) > 0) {
          max[i] = v;
        }
      }
    }
  }

  public long rowCount() {
    return rows;
  }

  /** The statistics so far; {@code null} for a column in mode {@code none}. */
  public FieldStats[] result() {
    FieldStats[] full = new FieldStats[modes.length];
    for (int i = 0; i < modes.length; i++) {
      full[i] = new FieldStats(min[i], max[i], nulls[i]);
    }
    return apply(modes, full);
  }

  /**
   * Statistics kept as {@code modes} say, from the full statistics of the same columns (minimum,
   * maximum and null count of every value, as a file format's footer holds them; an element may be
   * {@code null} for unknown): what {@link #result()} gives for the same rows. Column {@code i}
   * takes {@code modes[i]}.
   */
  public static FieldStats[] apply(StatsMode[] modes, FieldStats[] full) {
    FieldStats[] stats = new FieldStats[modes.length];
    for (int i = 0; i < modes.length; i++) {
      StatsMode mode = modes[i];
      FieldStats f = full[i] == null ? FieldStats.UNKNOWN : full[i];
      switch (mode.kind()) {
        case NONE:
          break;
        case COUNTS:
          stats[i] = new FieldStats(null, null, f.nullCount());
          break;
        case FULL:
          stats[i] = f;
          break;
        default:
          stats[i] =
              new FieldStats(
                  truncateMin(f.min(), mode.length()),
                  truncateMax(f.max(), mode.length()),
                  f.nullCount());
      }
    }
    return stats;
  }

  /**
   * A lower bound of {@code v} of at most {@code n} characters (bytes); other values as they are.
   */
  public static Object truncateMin(Object v, int n) {
    if (v instanceof String) {
      String s = (String) v;
      return s.codePointCount(0, s.length()) <= n ? s : s.substring(0, s.offsetByCodePoints(0, n));
    }
    if (v instanceof byte[]) {
      byte[] b = (byte[]) v;
      return b.length <= n ? b : Arrays.copyOf(b, n);
    }
    return v;
  }

  /**
   * An upper bound of {@code v} of at most {@code n} characters (bytes): {@code v} itself when it
   * is short enough, else its prefix with the last character (byte) raised by one, dropping
   * characters that cannot be raised; {@code null} (unknown) when none can.
   */
  public static Object truncateMax(Object v, int n) {
    if (v instanceof String) {
      String s = (String) v;
      if (s.codePointCount(0, s.length()) <= n) {
        return s;
      }
      int[] cps = s.codePoints().limit(n).toArray();
      for (int k = cps.length - 1; k >= 0; k--) {
        int next = cps[k] + 1;
        if (next == Character.MIN_SURROGATE) {
          next = Character.MAX_SURROGATE + 1;
        }
        if (next <= Character.MAX_CODE_POINT) {
          cps[k] = next;
          return new String(cps, 0, k + 1);
        }
      }
      return null;
    }
    if (v instanceof byte[]) {
      byte[] b = (byte[]) v;
      if (b.length <= n) {
        return b;
      }
      for (int k = n - 1; k >= 0; k--) {
        if (b[k] != (byte) 0xFF) {
          byte[] bound = Arrays.copyOf(b, k + 1);
          bound[k]++;
          return bound;
        }
      }
      return null;
    }
    return v;
  }
}
