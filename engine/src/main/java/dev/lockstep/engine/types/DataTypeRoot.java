package dev.lockstep.engine.types;

/**
 * The kinds of column type, with the Java class a {@link dev.lockstep.engine.data.GenericRow} holds
 * for each.
 */
public enum DataTypeRoot {
  /** {@link Integer}. */
  INT(Integer.class),
  /** {@link Long}. */
  BIGINT(Long.class),
  /** {@link Double}. */
  DOUBLE(Double.class),
  /** {@link Boolean}. */
  BOOLEAN(Boolean.class),
  /** {@link String}. */
  STRING(String.class),
  /** {@code byte[]}. */
  BYTES(byte[].class),
  /** {@link java.math.BigDecimal} with the type's scale. */
  DECIMAL(java.math.BigDecimal.class),
  /** {@link java.time.LocalDate}. */
  DATE(java.time.LocalDate.class),
  /** {@link java.time.LocalDateTime}, microsecond precision. */
  TIMESTAMP(java.time.LocalDateTime.class);

  private final Class<?> javaClass;

  DataTypeRoot(Class<?> javaClass) {
    this.javaClass = javaClass;
  }

  /** The class of a non-null value of this type in a row. */
  public Class<?> javaClass() {
    return javaClass;
  }
}
