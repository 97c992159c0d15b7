package dev.lockstep.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import scala.Function1;
import scala.runtime.BoxedUnit;

/**
 * {@code spark.sql.extensions=dev.lockstep.spark.LockstepSparkExtensions}: adds {@code CALL} to
 * Spark SQL (Spark 3.5's parser has none) for Lockstep's procedures; every other statement goes to
 * Spark's own parser unchanged.
 */
public class LockstepSparkExtensions implements Function1<SparkSessionExtensions, BoxedUnit> {

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectParser(
        new scala.runtime.AbstractFunction2<
            org.apache.spark.sql.SparkSession,
            org.apache.spark.sql.catalyst.parser.ParserInterface,
            org.apache.spark.sql.catalyst.parser.ParserInterface>() {
          @Override
          public org.apache.spark.sql.catalyst.parser.ParserInterface apply(
              org.apache.spark.sql.SparkSession session,
              org.apache.spark.sql.catalyst.parser.ParserInterface delegate) {
            return new LockstepSqlParser(session, delegate);
          }
        });
    return BoxedUnit.UNIT;
  }
}
