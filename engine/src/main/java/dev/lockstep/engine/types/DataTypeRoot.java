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
  TIMESTAMP(java.time.LocalDateTime.class),
  /** {@link Byte}: 8-bit signed. */
  TINYINT(Byte.class),
  /** {@link Short}: 16-bit signed. */
  SMALLINT(Short.class),
  /** {@link Float}: 32-bit IEEE 754. */
  FLOAT(Float.class),
  /** {@link String} of exactly the type's length in code points (blank-padded). */
  CHAR(String.class),
  /** {@link String} of at most the type's length in code points. */
  VARCHAR(String.class),
  /**
   * {@link java.time.Instant}: a point on the time line, with the type's precision (0 to 6
   * fractional digits of a second).
   */
  TIMESTAMP_LTZ(java.time.Instant.class);

  private final Class<?> javaClass;

  DataTypeRoot(Class<?> javaClass) {
    this.javaClass = javaClass;
  }

  /** The class of a non-null value of this type in a row. */
  public Class<?> javaClass() {
    return javaClass;
  }
}
