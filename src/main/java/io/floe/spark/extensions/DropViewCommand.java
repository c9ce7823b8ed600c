package io.floe.spark.extensions;

import io.floe.spark.util.Unchecked;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.types.StructType;

/**
 * {@code DROP VIEW [IF EXISTS] v}: drops the view from its catalog. A missing view fails unless
 * {@code IF EXISTS}; a table of that name is never dropped (use DROP TABLE).
 */
final class DropViewCommand extends ViewCommand {
  private final ViewRef target;
  private final boolean ifExists;

  DropViewCommand(ViewRef target, boolean ifExists) {
    this.target = Objects.requireNonNull(target, "target is null");
    this.ifExists = ifExists;
  }

  @Override
  public String name() {
    return "DROP VIEW " + target.quoted();
  }

  @Override
  StructType schema() {
    return new StructType();
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    if (target.catalog().dropView(target.ident())) {
      return List.of();
    }
    if (target.catalog() instanceof TableCatalog tables && tables.tableExists(target.ident())) {
      throw ViewErrors.message(
          String.format(
              "[WRONG_COMMAND_FOR_OBJECT_TYPE] Cannot drop %s with DROP VIEW: it is a table; use"
                  + " DROP TABLE instead",
              target.quoted()));
    }
    if (!ifExists) {
      throw Unchecked.rethrow(new NoSuchViewException(target.ident()));
    }
    return List.of();
  }
}
