package dev.lockstep.engine.predicate;

import dev.lockstep.engine.data.GenericRow;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;

/**
 * A condition on the columns of a row type, built by {@link PredicateBuilder} (or parsed by {@link
 * PredicateParser}). It is evaluated two ways:
 *
 * <ul>
 *   <li>on a row, with SQL's three-valued logic ({@link #eval}): a comparison with NULL is UNKNOWN,
 *       {@code NOT UNKNOWN} is UNKNOWN, {@code FALSE AND UNKNOWN} is FALSE, {@code TRUE OR UNKNOWN}
 *       is TRUE; a row passes a filter only when the predicate is TRUE ({@link #test});
 *   <li>on statistics of a set of rows ({@link #mightMatch}): {@code false} only when no row of the
 *       set can make the predicate TRUE; missing statistics are unknown and might match.
 * </ul>
 *
 * Column references are positions in the row type (the name is kept for messages). Values are
 * compared in {@link Values}' order. Immutable and serializable.
 */
public sealed interface Predicate extends Serializable
    permits Predicate.Leaf, Predicate.And, Predicate.Or, Predicate.Not {

  /** TRUE, FALSE, or {@code null} for UNKNOWN. */
  Boolean eval(GenericRow row);

  /** Whether the predicate is TRUE for {@code row} (FALSE and UNKNOWN filter the row out). */
  default boolean test(GenericRow row) {
    return Boolean.TRUE.equals(eval(row));
  }

  /** {@code false} when no row these statistics describe can make this predicate TRUE. */
  boolean mightMatch(StatsView stats);

  /** {@code NOT this}, with the negation pushed down to the comparisons. */
  Predicate negate();

  /** This predicate with column {@code i} renumbered {@code map(i)}; {@code null} if one is -1. */
  Predicate mapColumns(IntUnaryOperator map);

  /** Adds the positions of the columns this predicate reads. */
  void collectColumns(Set<Integer> into);

  /** The positions of the columns this predicate reads, ascending. */
  default Set<Integer> columns() {
    Set<Integer> columns = new TreeSet<>();
    collectColumns(columns);
    return columns;
  }

  /** The operators of a comparison. */
  enum Op {
    EQ("="),
    NE("<>"),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">="),
    IN("IN"),
    NOT_IN("NOT IN"),
    IS_NULL("IS NULL"),
    IS_NOT_NULL("IS NOT NULL");

    final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    Op negated() {
      switch (this) {
        case EQ:
          return NE;
        case NE:
          return EQ;
        case LT:
          return GE;
        case LE:
          return GT;
        case GT:
          return LE;
        case GE:
          return LT;
        case IN:
          return NOT_IN;
        case NOT_IN:
          return IN;
        case IS_NULL:
          return IS_NOT_NULL;
        default:
          return IS_NULL;
      }
    }
  }

  /**
   * One comparison of column {@code index} with non-null literals of the column's Java class (one
   * for comparisons, any number for IN and NOT IN, none for IS [NOT] NULL).
   */
  record Leaf(Op op, int index, String column, List<Object> literals) implements Predicate {
    public Leaf {
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(column, "column");
      literals = List.copyOf(literals);
    }

    @Override
    public Boolean eval(GenericRow row) {
      Object v = row.get(index);
      if (op == Op.IS_NULL) {
        return v == null;
      }
      if (op == Op.IS_NOT_NULL) {
        return v != null;
      }
      if (v == null) {
        return null;
      }
      switch (op) {
        case IN:
          return inList(v);
        case NOT_IN:
          return !inList(v);
        default:
          int c = Values.compare(v, literals.get(0));
          switch (op) {
            case EQ:
              return c == 0;
            case NE:
              return c != 0;
            case LT:
              return c < 0;
            case LE:
              return c <= 0;
            case GT:
              return c > 0;
            default:
              return c >= 0;
          }
      }
    }

    private boolean inList(Object v) {
      for (Object literal : literals) {
        if (Values.equal(v, literal)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public boolean mightMatch(StatsView stats) {
      FieldStats f = stats.field(index);
      long rows = stats.rowCount();
      Long nulls = f.nullCount();
      if (rows == 0) {
        return false;
      }
      if (op == Op.IS_NULL) {
        return nulls == null || nulls > 0;
      }
      if (op == Op.IS_NOT_NULL) {
        return nulls == null || rows < 0 || nulls < rows;
      }
      if (nulls != null && rows >= 0 && nulls >= rows) {
        // Only NULLs: every comparison is UNKNOWN.
        return false;
      }
      Object min = f.min();
      Object max = f.max();
      switch (op) {
        case EQ:
          return mayEqual(min, max, literals.get(0));
        case NE:
          return !onlyValue(min, max, literals.get(0));
        case LT:
          return min == null || Values.compare(min, literals.get(0)) < 0;
        case LE:
          return min == null || Values.compare(min, literals.get(0)) <= 0;
        case GT:
          return max == null || Values.compare(max, literals.get(0)) > 0;
        case GE:
          return max == null || Values.compare(max, literals.get(0)) >= 0;
        case IN:
          for (Object literal : literals) {
            if (mayEqual(min, max, literal)) {
              return true;
            }
          }
          return false;
        default: // NOT_IN
          for (Object literal : literals) {
            if (onlyValue(min, max, literal)) {
              return false;
            }
          }
          return true;
      }
    }

    private static boolean mayEqual(Object min, Object max, Object literal) {
      return (min == null || Values.compare(min, literal) <= 0)
          && (max == null || Values.compare(max, literal) >= 0);
    }

    /** Whether every non-null value is {@code literal} (min and max exact and equal to it). */
    private static boolean onlyValue(Object min, Object max, Object literal) {
      return min != null
          && max != null
          && Values.compare(min, literal) == 0
          && Values.compare(max, literal) == 0;
    }

    @Override
    public Predicate negate() {
      return new Leaf(op.negated(), index, column, literals);
    }

    @Override
    public Predicate mapColumns(IntUnaryOperator map) {
      int mapped = map.applyAsInt(index);
      return mapped < 0 ? null : new Leaf(op, mapped, column, literals);
    }

    @Override
    public void collectColumns(Set<Integer> into) {
      into.add(index);
    }

    @Override
    public String toString() {
      switch (op) {
        case IS_NULL:
        case IS_NOT_NULL:
          return column + " " + op.symbol;
        case IN:
        case NOT_IN:
          return column
              + " "
              + op.symbol
              + " ("
              + literals.stream().map(Leaf::literal).collect(Collectors.joining(", "))
              + ")";
        default:
          return column + " " + op.symbol + " " + literal(literals.get(0));
      }
    }

    private static String literal(Object v) {
      if (v instanceof String) {
        return "'" + ((String) v).replace("'", "''") + "'";
      }
      if (v instanceof byte[]) {
        return "X'" + java.util.HexFormat.of().formatHex((byte[]) v) + "'";
      }
      if (v instanceof java.time.LocalDate) {
        return "DATE '" + v + "'";
      }
      if (v instanceof java.time.LocalDateTime) {
        return "TIMESTAMP '" + v.toString().replace('T', ' ') + "'";
      }
      if (v instanceof java.time.Instant) {
        // A TIMESTAMP_LTZ literal: quoted ISO text with its offset Z, which converts back.
        return "'" + v + "'";
      }
      return String.valueOf(v);
    }
  }

  /** Every child TRUE. */
  record And(List<Predicate> children) implements Predicate {
    public And {
      children = List.copyOf(children);
    }

    @Override
    public Boolean eval(GenericRow row) {
      boolean unknown = false;
      for (Predicate p : children) {
        Boolean b = p.eval(row);
        if (b == null) {
          unknown = true;
        } else if (!b) {
          return false;
        }
      }
      return unknown ? null : true;
    }

    @Override
    public boolean mightMatch(StatsView stats) {
      for (Predicate p : children) {
        if (!p.mightMatch(stats)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public Predicate negate() {
      List<Predicate> negated = new ArrayList<>();
      children.forEach(p -> negated.add(p.negate()));
      return new Or(negated);
    }

    @Override
    public Predicate mapColumns(IntUnaryOperator map) {
      List<Predicate> mapped = new ArrayList<>();
      for (Predicate p : children) {
        Predicate m = p.mapColumns(map);
        if (m == null) {
          return null;
        }
        mapped.add(m);
      }
      return new And(mapped);
    }

    @Override
    public void collectColumns(Set<Integer> into) {
      children.forEach(p -> p.collectColumns(into));
    }

    @Override
    public String toString() {
      return children.stream().map(p -> "(" + p + ")").collect(Collectors.joining(" AND "));
    }
  }

  /** Some child TRUE. */
  record Or(List<Predicate> children) implements Predicate {
    public Or {
      children = List.copyOf(children);
    }

    @Override
    public Boolean eval(GenericRow row) {
      boolean unknown = false;
      for (Predicate p : children) {
        Boolean b = p.eval(row);
        if (b == null) {
          unknown = true;
        } else if (b) {
          return true;
        }
      }
      return unknown ? null : false;
    }

    @Override
    public boolean mightMatch(StatsView stats) {
      for (Predicate p : children) {
        if (p.mightMatch(stats)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public Predicate negate() {
      List<Predicate> negated = new ArrayList<>();
      children.forEach(p -> negated.add(p.negate()));
      return new And(negated);
    }

    @Override
    public Predicate mapColumns(IntUnaryOperator map) {
      List<Predicate> mapped = new ArrayList<>();
      for (Predicate p : children) {
        Predicate m = p.mapColumns(map);
        if (m == null) {
          return null;
        }
        mapped.add(m);
      }
      return new Or(mapped);
    }

    @Override
    public void collectColumns(Set<Integer> into) {
      children.forEach(p -> p.collectColumns(into));
    }

    @Override
    public String toString() {
      return children.stream().map(p -> "(" + p + ")").collect(Collectors.joining(" OR "));
    }
  }

  /** The child negated: TRUE for FALSE, FALSE for TRUE, UNKNOWN stays UNKNOWN. */
  record Not(Predicate child) implements Predicate {
    public Not {
      Objects.requireNonNull(child, "child");
    }

    @Override
    public Boolean eval(GenericRow row) {
      Boolean b = child.eval(row);
      return b == null ? null : !b;
    }

    @Override
    public boolean mightMatch(StatsView stats) {
      return child.negate().mightMatch(stats);
    }

    @Override
    public Predicate negate() {
      return child;
    }

    @Override
    public Predicate mapColumns(IntUnaryOperator map) {
      Predicate m = child.mapColumns(map);
      return m == null ? null : new Not(m);
    }

    @Override
    public void collectColumns(Set<Integer> into) {
      child.collectColumns(into);
    }

    @Override
    public String toString() {
      return "NOT (" + child + ")";
    }
  }

  /** The conjuncts of {@code p} (its children when it is an AND, else itself). */
  static List<Predicate> splitAnd(Predicate p) {
    if (p == null) {
      return List.of();
    }
    if (p instanceof And) {
      List<Predicate> all = new ArrayList<>();
      for (Predicate c : ((And) p).children()) {
        all.addAll(splitAnd(c));
      }
      return all;
    }
    return List.of(p);
  }

  /** The AND of {@code conjuncts}: {@code null} when empty, the one when single. */
  static Predicate and(List<Predicate> conjuncts) {
    if (conjuncts.isEmpty()) {
      return null;
    }
    return conjuncts.size() == 1 ? conjuncts.get(0) : new And(conjuncts);
  }
}
