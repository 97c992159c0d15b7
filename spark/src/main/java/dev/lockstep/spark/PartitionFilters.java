package dev.lockstep.spark;

import dev.lockstep.engine.schema.TableSchema;
import dev.lockstep.engine.types.DataType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.spark.sql.sources.AlwaysFalse;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;

/**
 * Spark filters on partition columns, evaluated exactly on a partition's values (the engine's
 * partition filter: whole partitions are kept or skipped). A filter that names another column, or
 * that this class cannot evaluate, is not a partition filter and stays with Spark.
 *
 * <p>Semantics follow SQL: a comparison with NULL is unknown, and an unknown filter drops the
 * partition; {@code NOT unknown} is unknown too (three-valued logic).
 */
final class PartitionFilters {

  private PartitionFilters() {}

  /** Whether {@code filter} can be evaluated on the partition values of {@code schema}. */
  static boolean isPartitionFilter(Filter filter, TableSchema schema) {
    if (filter instanceof AlwaysTrue || filter instanceof AlwaysFalse) {
      return true;
    }
    if (!supported(filter)) {
      return false;
    }
    return Arrays.stream(filter.references()).allMatch(schema.partitionKeys()::contains);
  }

  private static boolean supported(Filter f) {
    if (f instanceof And a) {
      return supported(a.left()) && supported(a.right());
    }
    if (f instanceof Or o) {
      return supported(o.left()) && supported(o.right());
    }
    if (f instanceof Not n) {
      return supported(n.child());
    }
    return f instanceof EqualTo
        || f instanceof EqualNullSafe
        || f instanceof GreaterThan
        || f instanceof GreaterThanOrEqual
        || f instanceof LessThan
        || f instanceof LessThanOrEqual
        || f instanceof In
        || f instanceof IsNull
        || f instanceof IsNotNull
        || f instanceof StringStartsWith
        || f instanceof AlwaysTrue
        || f instanceof AlwaysFalse;
  }

  /** A predicate on partition values (column name to engine value) that all filters must pass. */
  static Predicate<Map<String, Object>> predicate(List<Filter> filters, TableSchema schema) {
    List<Filter> copy = new ArrayList<>(filters);
    return new Evaluator(copy, schema);
  }

  private record Evaluator(List<Filter> filters, TableSchema schema)
      implements Predicate<Map<String, Object>>, Serializable {
    @Override
    public boolean test(Map<String, Object> partition) {
      for (Filter f : filters) {
        if (!Boolean.TRUE.equals(eval(f, partition, schema))) {
          return false;
        }
      }
      return true;
    }
  }

  /** TRUE, FALSE or null (unknown). */
  static Boolean eval(Filter f, Map<String, Object> p, TableSchema schema) {
    if (f instanceof AlwaysTrue) {
      return true;
    }
    if (f instanceof AlwaysFalse) {
      return false;
    }
    if (f instanceof And a) {
      Boolean l = eval(a.left(), p, schema);
      Boolean r = eval(a.right(), p, schema);
      if (Boolean.FALSE.equals(l) || Boolean.FALSE.equals(r)) {
        return false;
      }
      return l == null || r == null ? null : true;
    }
    if (f instanceof Or o) {
      Boolean l = eval(o.left(), p, schema);
      Boolean r = eval(o.right(), p, schema);
      if (Boolean.TRUE.equals(l) || Boolean.TRUE.equals(r)) {
        return true;
      }
      return l == null || r == null ? null : false;
    }
    if (f instanceof Not n) {
      Boolean c = eval(n.child(), p, schema);
      return c == null ? null : !c;
    }
    if (f instanceof IsNull i) {
      return p.get(i.attribute()) == null;
    }
    if (f instanceof IsNotNull i) {
      return p.get(i.attribute()) != null;
    }
    if (f instanceof EqualNullSafe e) {
      Object v = p.get(e.attribute());
      Object lit = lit(e.attribute(), e.value(), schema);
      if (v == null || lit == null) {
        return v == null && lit == null;
      }
      return compare(v, lit) == 0;
    }
    if (f instanceof In in) {
      Object v = p.get(in.attribute());
      if (v == null) {
        return null;
      }
      boolean sawNull = false;
      for (Object value : in.values()) {
        Object lit = lit(in.attribute(), value, schema);
        if (lit == null) {
          sawNull = true;
        } else if (compare(v, lit) == 0) {
          return true;
        }
      }
      return sawNull ? null : false;
    }
    if (f instanceof StringStartsWith s) {
      Object v = p.get(s.attribute());
      return v == null ? null : ((String) v).startsWith(s.value());
    }
    String attribute;
    Object value;
    if (f instanceof EqualTo e) {
      attribute = e.attribute();
      value = e.value();
    } else if (f instanceof GreaterThan g) {
      attribute = g.attribute();
      value = g.value();
    } else if (f instanceof GreaterThanOrEqual g) {
      attribute = g.attribute();
      value = g.value();
    } else if (f instanceof LessThan l) {
      attribute = l.attribute();
      value = l.value();
    } else if (f instanceof LessThanOrEqual l) {
      attribute = l.attribute();
      value = l.value();
    } else {
      throw new IllegalStateException("Not a partition filter: " + f);
    }
    Object v = p.get(attribute);
    Object lit = lit(attribute, value, schema);
    if (v == null || lit == null) {
      return null;
    }
    int c = compare(v, lit);
    if (f instanceof EqualTo) {
      return c == 0;
    } else if (f instanceof GreaterThan) {
      return c > 0;
    } else if (f instanceof GreaterThanOrEqual) {
      return c >= 0;
    } else if (f instanceof LessThan) {
      return c < 0;
    }
    return c <= 0;
  }

  private static Object lit(String column, Object value, TableSchema schema) {
    DataType type = schema.rowType().field(schema.rowType().indexOf(column)).type();
    return SparkTypes.literal(value, type);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return Arrays.compareUnsigned(x, y);
    }
    if (a instanceof java.math.BigDecimal x && b instanceof java.math.BigDecimal y) {
      return x.compareTo(y);
    }
    Objects.requireNonNull(a);
    return ((Comparable) a).compareTo(b);
  }
}
