package io.floe.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.junit.jupiter.api.Test;

/** Each of Iceberg's catalog exceptions becomes Spark's, naming the table or namespace. */
class SparkExceptionsTest {
  private static final Identifier TABLE = Identifier.of(new String[] {"db"}, "t");
  private static final Identifier OTHER = Identifier.of(new String[] {"db"}, "u");
  private static final String[] NAMESPACE = {"db"};

  private static org.apache.iceberg.exceptions.NoSuchTableException noTable() {
    return new org.apache.iceberg.exceptions.NoSuchTableException("Table does not exist: db.t");
  }

  private static org.apache.iceberg.exceptions.NoSuchNamespaceException noNamespace() {
    return new org.apache.iceberg.exceptions.NoSuchNamespaceException("Namespace does not exist: db");
  }

  @Test
  void replaceOfAMissingTableOrNamespaceIsSparksNoSuchTableOrNamespace() {
    assertThatThrownBy(() -> SparkExceptions.onReplace(TABLE, () -> { throw noTable(); }))
        .isInstanceOf(NoSuchTableException.class)
        .hasMessageContaining("db.t");
    assertThatThrownBy(() -> SparkExceptions.onReplace(TABLE, () -> { throw noNamespace(); }))
        .isInstanceOf(NoSuchNamespaceException.class)
        .hasMessageContaining("db");
  }

  @Test
  void dropOfAMissingTableDropsNothing() {
    assertThat(SparkExceptions.onDrop(() -> { throw noTable(); })).isFalse();
    assertThat(SparkExceptions.onDrop(() -> true)).isTrue();
  }

  @Test
  void renameNamesTheMissingSourceOrTheExistingTarget() {
    assertThatThrownBy(() -> SparkExceptions.onRename(TABLE, OTHER, () -> { throw noTable(); }))
        .isInstanceOf(NoSuchTableException.class)
        .hasMessageContaining("db.t");
    assertThatThrownBy(
            () ->
                SparkExceptions.onRename(
                    TABLE, OTHER, () -> { throw new AlreadyExistsException("Table already exists: db.u"); }))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("db.u");
  }

  @Test
  void listingAMissingNamespaceGivesTheFallback() {
    assertThat(SparkExceptions.orWhenNoNamespace(() -> { throw noNamespace(); }, "none")).isEqualTo("none");
    assertThat(SparkExceptions.orWhenNoNamespace(() -> "some", "none")).isEqualTo("some");
  }

  @Test
  void namespaceCreationAndDropAreTranslated() {
    assertThatThrownBy(
            () ->
                SparkExceptions.onCreateNamespace(
                    NAMESPACE, () -> { throw new AlreadyExistsException("Namespace already exists: db"); }))
        .isInstanceOf(NamespaceAlreadyExistsException.class)
        .hasMessageContaining("db");
    assertThatThrownBy(
            () ->
                SparkExceptions.onDropNamespace(
                    NAMESPACE, () -> { throw new NamespaceNotEmptyException("Namespace db is not empty"); }))
        .isInstanceOf(NonEmptyNamespaceException.class)
        .hasMessageContaining("db");
  }
}
