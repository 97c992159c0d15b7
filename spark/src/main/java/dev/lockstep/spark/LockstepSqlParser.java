package dev.lockstep.spark;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Recognizes {@code CALL [catalog.]sys.<procedure>(args)} and hands everything else to Spark's
 * parser.
 *
 * <p>A CALL runs when it is parsed, and the plan returned is a local relation holding the
 * procedure's result. {@code spark.sql(...)} and the spark-sql shell parse a statement once, right
 * before they would run a command, so a CALL behaves like one of Spark's own commands (it runs
 * eagerly, once). This keeps the connector in Java: a planned CALL would need a logical plan node,
 * an analyzer rule and a physical operator written in Scala, as Iceberg and Paimon have. The price:
 * {@code EXPLAIN CALL ...} is not supported (it is refused, not run).
 */
final class LockstepSqlParser implements ParserInterface {

  private final SparkSession session;
  private final ParserInterface delegate;

  LockstepSqlParser(SparkSession session, ParserInterface delegate) {
    this.session = session;
    this.delegate = delegate;
  }

  @Override
  public LogicalPlan parsePlan(String sqlText) throws ParseException {
    String text = CallStatement.stripComments(sqlText);
    if (CallStatement.isCall(text)) {
      CallStatement call = CallStatement.parse(text);
      CatalogPlugin plugin =
          call.catalog() == null
              ? session.sessionState().catalogManager().currentCatalog()
              : session.sessionState().catalogManager().catalog(call.catalog());
      if (!(plugin instanceof LockstepCatalog catalog)) {
        throw new IllegalArgumentException(
            "CALL "
                + call.name()
                + ": catalog '"
                + plugin.name()
                + "' is not a Lockstep catalog ("
                + LockstepCatalog.class.getName()
                + "); write"
                + " CALL <lockstep catalog>.sys."
                + call.procedure()
                + "(...)");
      }
      Procedures.Result result = Procedures.run(session, catalog, call);
      List<Row> rows = result.rows();
      return session.createDataFrame(rows, result.schema()).logicalPlan();
    }
    if (CallStatement.isExplainCall(text)) {
      throw new IllegalArgumentException(
          "EXPLAIN CALL is not supported: a Lockstep procedure"
              + " runs when its CALL statement is parsed; run the CALL itself");
    }
    return delegate.parsePlan(sqlText);
  }

  @Override
  public Expression parseExpression(String sqlText) throws ParseException {
    return delegate.parseExpression(sqlText);
  }

  @Override
  public TableIdentifier parseTableIdentifier(String sqlText) throws ParseException {
    return delegate.parseTableIdentifier(sqlText);
  }

  @Override
  public FunctionIdentifier parseFunctionIdentifier(String sqlText) throws ParseException {
    return delegate.parseFunctionIdentifier(sqlText);
  }

  @Override
  public scala.collection.immutable.Seq<String> parseMultipartIdentifier(String sqlText)
      throws ParseException {
    return delegate.parseMultipartIdentifier(sqlText);
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return delegate.parseQuery(sqlText);
  }

  @Override
  public StructType parseTableSchema(String sqlText) throws ParseException {
    return delegate.parseTableSchema(sqlText);
  }

  @Override
  public DataType parseDataType(String sqlText) throws ParseException {
    return delegate.parseDataType(sqlText);
  }
}
