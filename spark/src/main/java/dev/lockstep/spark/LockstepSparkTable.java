package dev.lockstep.spark;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.schema.TableSchema;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A Lockstep table at one schema version, as Spark sees it. */
final class LockstepSparkTable implements SupportsRead, SupportsWrite {

  private final LockstepCatalog catalog;
  private final Identifier identifier;
  private final TableSchema schema;

  /** The snapshot of {@code VERSION AS OF}, or null for the latest. */
  private final Long snapshotId;

  LockstepSparkTable(
      LockstepCatalog catalog, Identifier identifier, TableSchema schema, Long snapshotId) {
    this.catalog = catalog;
    this.identifier = identifier;
    this.schema = schema;
    this.snapshotId = snapshotId;
  }

  Long snapshotId() {
    return snapshotId;
  }

  LockstepCatalog catalog() {
    return catalog;
  }

  Identifier identifier() {
    return identifier;
  }

  TableSchema tableSchema() {
    return schema;
  }

  @Override
  public String name() {
    return catalog.name()
        + "."
        + identifier.fullName()
        + (snapshotId == null ? "" : " VERSION AS OF " + snapshotId);
  }

  @Override
  public StructType schema() {
    return SparkTypes.toSpark(schema.rowType());
  }

  @Override
  public Transform[] partitioning() {
    return schema.partitionKeys().stream().map(Expressions::identity).toArray(Transform[]::new);
  }

  @Override
  public Map<String, String> properties() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("provider", "lockstep");
    if (!schema.primaryKeys().isEmpty()) {
      props.put(LockstepCatalog.PRIMARY_KEY, String.join(",", schema.primaryKeys()));
    }
    props.putAll(new java.util.TreeMap<>(schema.options()));
    return props;
  }

  @Override
  public Set<TableCapability> capabilities() {
    if (snapshotId != null) {
      return EnumSet.of(TableCapability.BATCH_READ);
    }
    return EnumSet.of(
        TableCapability.BATCH_READ,
        TableCapability.BATCH_WRITE,
        TableCapability.TRUNCATE,
        TableCapability.OVERWRITE_BY_FILTER,
        TableCapability.OVERWRITE_DYNAMIC);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new LockstepScan.Builder(this, options);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new LockstepWrite.Builder(this, info);
  }
}
