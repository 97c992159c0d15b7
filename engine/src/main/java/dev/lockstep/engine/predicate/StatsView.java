package dev.lockstep.engine.predicate;

/** Statistics of a set of rows, per column of the row type a predicate was built on. */
public interface StatsView {

  /** The number of rows, or -1 when unknown. */
  long rowCount();

  /** The statistics of column {@code index}; {@link FieldStats#UNKNOWN} when none were kept. */
  FieldStats field(int index);

  /** Statistics over an array (indexed as the row type), {@code null} entries unknown. */
  static StatsView of(long rowCount, FieldStats[] fields) {
    return new StatsView() {
      @Override
      public long rowCount() {
        return rowCount;
      }

      @Override
      public FieldStats field(int index) {
        FieldStats f = fields == null || index >= fields.length ? null : fields[index];
        return f == null ? FieldStats.UNKNOWN : f;
      }
    };
  }
}
