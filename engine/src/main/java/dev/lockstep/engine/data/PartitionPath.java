package dev.lockstep.engine.data;

import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.types.RowType;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns partition values into the directory path that also identifies the partition in manifests,
 * {@code dt=2024-05-01/hh=3}, and back. {@code %}, {@code /}, {@code =} and control characters in
 * values are percent-escaped; NULL is {@value #NULL_VALUE}; BYTES are base64 (URL alphabet).
 */
public final class PartitionPath {

  public static final String NULL_VALUE = "__DEFAULT_PARTITION__";

  private final RowType partitionType;

  public PartitionPath(RowType partitionType) {
    this.partitionType = partitionType;
  }

  /** The path of a partition row ({@code ""} for an unpartitioned table). */
  public String toPath(GenericRow partition) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < partitionType.size(); i++) {
      if (i > 0) {
        sb.append('/');
      }
      sb.append(escape(partitionType.field(i).name()))
          .append('=')
          .append(escape(format(partitionType.field(i).type(), partition.get(i))));
    }
    return sb.toString();
  }

  /** The partition row of a path this class printed. */
  public GenericRow toRow(String path) {
    if (partitionType.size() == 0) {
      return GenericRow.of();
    }
    String[] parts = path.split("/");
    Object[] values = new Object[partitionType.size()];
    for (int i = 0; i < values.length; i++) {
      String raw = unescape(parts[i].substring(parts[i].indexOf('=') + 1));
      values[i] = parse(partitionType.field(i).type(), raw);
    }
    return GenericRow.of(values);
  }

  /** The partition as column name to value, for filters. */
  public Map<String, Object> toMap(String path) {
    GenericRow row = toRow(path);
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < partitionType.size(); i++) {
      map.put(partitionType.field(i).name(), row.get(i));
    }
    return map;
  }

  private static String format(DataType type, Object value) {
    if (value == null) {
      return NULL_VALUE;
    }
    switch (type.root()) {
      case BYTES:
        return Base64.getUrlEncoder().encodeToString((byte[]) value);
      case DECIMAL:
        return ((BigDecimal) value).toPlainString();
      default:
        return value.toString();
    }
  }

  private static Object parse(DataType type, String text) {
    if (text.equals(NULL_VALUE)) {
      return null;
    }
    switch (type.root()) {
      case INT:
        return Integer.parseInt(text);
      case BIGINT:
        return Long.parseLong(text);
      case DOUBLE:
        return Double.parseDouble(text);
      case BOOLEAN:
        return Boolean.parseBoolean(text);
      case BYTES:
        return Base64.getUrlDecoder().decode(text);
      case DECIMAL:
        return new BigDecimal(text).setScale(type.scale());
      case DATE:
        return LocalDate.parse(text);
      case TIMESTAMP:
        return LocalDateTime.parse(text);
      case TINYINT:
        return Byte.parseByte(text);
      case SMALLINT:
        return Short.parseShort(text);
      case FLOAT:
        return Float.parseFloat(text);
      case TIMESTAMP_LTZ:
        return java.time.Instant.parse(text);
      default:
        return text;
    }
  }

  static String escape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' || c == '/' || c == '=' || c < 0x20 || c == 0x7f) {
        sb.append('%').append(String.format("%02X", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  static String unescape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()) {
        sb.append((char) Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
