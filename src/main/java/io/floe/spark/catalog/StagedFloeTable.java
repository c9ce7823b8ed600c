package io.floe.spark.catalog;

import io.floe.spark.commit.TableLoader;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.spark.sql.connector.catalog.StagedTable;

/**
 * A table being created or replaced (CREATE/REPLACE TABLE [AS SELECT]): writes commit into an
 * Iceberg transaction, and the table appears or changes only when Spark commits the staged changes,
 * all at once. Aborting leaves the catalog as it was.
 */
public final class StagedFloeTable extends FloeTable implements StagedTable {
  private final Transaction transaction;

  StagedFloeTable(Transaction transaction, String name) {
    super(transaction.table(), new TransactionLoader(transaction, name), null);
    this.transaction = transaction;
  }

  @Override
  public void commitStagedChanges() {
    transaction.commitTransaction();
  }

  @Override
  public void abortStagedChanges() {
    // nothing reached the catalog yet; the write's own abort removes its data files
  }

  /** Hands the transaction's table to the committer; it exists only in the driver that staged it. */
  private static final class TransactionLoader implements TableLoader {
    private final transient Transaction transaction;
    private final String name;

    TransactionLoader(Transaction transaction, String name) {
      this.transaction = Objects.requireNonNull(transaction, "transaction is null");
      this.name = Objects.requireNonNull(name, "name is null");
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public Table load() {
      if (transaction == null) {
        throw new IllegalStateException(
            "Cannot commit to staged table " + name + ": its transaction lives in another driver");
      }
      return transaction.table();
    }

    @Override
    public String toString() {
      return "TransactionLoader{" + name + "}";
    }
  }
}
