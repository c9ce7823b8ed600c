package io.floe.spark.extensions;

import io.floe.spark.util.Unchecked;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * {@code ALTER VIEW v RENAME TO w}: renames the view within its catalog. The new name resolves as
 * any name does (a one-part name in the current namespace); a name in another catalog is refused,
 * as the official runtime refuses it, since no catalog can move a view to another.
 */
final class RenameViewCommand extends ViewCommand {
  private final ViewRef from;
  private final ViewRef to;

  RenameViewCommand(ViewRef from, ViewRef to) {
    this.from = Objects.requireNonNull(from, "from is null");
    this.to = Objects.requireNonNull(to, "to is null");
  }

  @Override
  public String name() {
    return "ALTER VIEW " + from.quoted() + " RENAME TO " + to.quoted();
  }

  @Override
  StructType schema() {
    return new StructType();
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    if (!from.catalog().name().equals(to.catalog().name())) {
      throw ViewErrors.message(
          String.format(
              "Cannot rename view %s to %s: a view cannot move to another catalog",
              from.quoted(), to.quoted()));
    }
    try {
      from.catalog().renameView(from.ident(), to.ident());
    } catch (Exception e) {
      throw Unchecked.rethrow(e);
    }
    return List.of();
  }
}
