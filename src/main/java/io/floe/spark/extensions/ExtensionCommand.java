package io.floe.spark.extensions;

import java.util.List;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * An extension statement as the procedure Spark runs for it: the parser hands Spark a {@code CALL}
 * of this procedure, already resolved, and Spark 4.1 runs it once while analysing the statement
 * (as it runs any {@code CALL}), returning no rows. It takes no arguments: it carries its parsed
 * statement. It is the {@link ViewCommand} of an {@code ALTER TABLE} statement, without output.
 *
 * <p>When called it resolves the table ({@link ExtensionTarget}), commits the statement's change
 * to the live table, and then makes the catalog and Spark's cached plans forget the old state, also
 * when the commit failed (its outcome may be unknown).
 */
final class ExtensionCommand extends ViewCommand {
  private final ExtensionStatement statement;

  ExtensionCommand(ExtensionStatement statement) {
    this.statement = Objects.requireNonNull(statement, "statement is null");
  }

  ExtensionStatement statement() {
    return statement;
  }

  @Override
  public String name() {
    return "ALTER TABLE " + Names.quoted(statement.table()) + " " + statement.action();
  }

  @Override
  StructType schema() {
    return new StructType();
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    boolean caseSensitive = spark.sessionState().conf().caseSensitiveAnalysis();
    ExtensionTarget target = ExtensionTarget.resolve(spark, statement);
    Table live = target.live();
    try {
      statement.applyTo(live, caseSensitive);
    } catch (IllegalArgumentException | ValidationException e) {
      throw ExtensionErrors.refused(statement.action(), target.quotedName(), e);
    } finally {
      target.invalidate(spark);
    }
    return List.of();
  }
}
