package io.floe.spark.extensions;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.ManageSnapshots;
import org.apache.iceberg.ReplaceSortOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.types.Types;

/**
 * A parsed extension statement: the table it names (as written, resolved when the statement runs)
 * and the one change it makes, committed through Iceberg's core API in a single commit, with the
 * official runtime's effects.
 *
 * <p>{@link #applyTo} either commits the whole change or throws with nothing committed: every
 * statement is one Iceberg update ({@code UpdatePartitionSpec}, {@code UpdateSchema}, {@code
 * ManageSnapshots}) or one transaction ({@code WRITE}).
 */
sealed interface ExtensionStatement {
  /** The table's name parts, as written. */
  List<String> table();

  /** What the statement does, for plans and messages: {@code ADD PARTITION FIELD bucket(4, id)}. */
  String action();

  /**
   * Commits the statement's change to a live table.
   *
   * @param caseSensitive whether column names match case-sensitively ({@code spark.sql.caseSensitive})
   * @throws IllegalArgumentException (or Iceberg's {@code ValidationException}) when the change does
   *     not fit the table; nothing is committed then
   */
  void applyTo(Table table, boolean caseSensitive);

  /** {@code ADD PARTITION FIELD <transform> [AS <name>]}. */
  record AddPartitionField(List<String> table, TransformTerm transform, String name)
      implements ExtensionStatement {
    public AddPartitionField {
      table = List.copyOf(table);
      Objects.requireNonNull(transform, "transform is null");
    }

    @Override
    public String action() {
      return "ADD PARTITION FIELD " + transform + (name == null ? "" : " AS " + Names.quoted(List.of(name)));
    }

    @Override
    public void applyTo(Table target, boolean caseSensitive) {
      target.updateSpec().caseSensitive(caseSensitive).addField(name, transform.toTerm()).commit();
    }
  }

  /**
   * {@code DROP PARTITION FIELD <transform | name>}: a bare name that is not a column is the name of
   * a partition field.
   */
  record DropPartitionField(List<String> table, TransformTerm transform) implements ExtensionStatement {
    public DropPartitionField {
      table = List.copyOf(table);
      Objects.requireNonNull(transform, "transform is null");
    }

    @Override
    public String action() {
      return "DROP PARTITION FIELD " + transform;
    }

    @Override
    public void applyTo(Table target, boolean caseSensitive) {
      UpdatePartitionSpec update = target.updateSpec().caseSensitive(caseSensitive);
      removeField(update, target.schema(), transform, caseSensitive).commit();
    }
  }

  /** {@code REPLACE PARTITION FIELD <transform | name> WITH <transform> [AS <name>]}, in one commit. */
  record ReplacePartitionField(List<String> table, TransformTerm from, TransformTerm to, String name)
      implements ExtensionStatement {
    public ReplacePartitionField {
      table = List.copyOf(table);
      Objects.requireNonNull(from, "from is null");
      Objects.requireNonNull(to, "to is null");
    }

    @Override
    public String action() {
      return "REPLACE PARTITION FIELD " + from + " WITH " + to
          + (name == null ? "" : " AS " + Names.quoted(List.of(name)));
    }

    @Override
    public void applyTo(Table target, boolean caseSensitive) {
      UpdatePartitionSpec update = target.updateSpec().caseSensitive(caseSensitive);
      removeField(update, target.schema(), from, caseSensitive).addField(name, to.toTerm()).commit();
    }
  }

  /**
   * {@code WRITE [DISTRIBUTED BY PARTITION] [LOCALLY] ORDERED BY ... | WRITE UNORDERED}: replaces
   * the table's sort order (with no fields: unsorted) and, unless {@code distributionMode} is null
   * ({@code LOCALLY ORDERED BY} alone), sets {@code write.distribution-mode}, in one transaction.
   */
  record SetWriteOrder(List<String> table, DistributionMode distributionMode, List<OrderField> order)
      implements ExtensionStatement {
    public SetWriteOrder {
      table = List.copyOf(table);
      order = List.copyOf(order);
    }

    @Override
    public String action() {
      String mode = distributionMode == null ? "" : " DISTRIBUTION " + distributionMode.modeName();
      String fields = order.isEmpty() ? " UNORDERED" : " ORDERED BY " + order.stream()
          .map(OrderField::toString).collect(Collectors.joining(", "));
      return "WRITE" + mode + fields;
    }

    @Override
    public void applyTo(Table target, boolean caseSensitive) {
      Transaction transaction = target.newTransaction();
      ReplaceSortOrder sortOrder = transaction.replaceSortOrder().caseSensitive(caseSensitive);
      for (OrderField field : order) {
        if (field.direction() == SortDirection.ASC) {
          sortOrder.asc(field.term().toTerm(), field.nullOrder());
        } else {
          sortOrder.desc(field.term().toTerm(), field.nullOrder());
        }
      }
      sortOrder.commit();
      if (distributionMode != null) {
        transaction
            .updateProperties()
            .set(TableProperties.WRITE_DISTRIBUTION_MODE, distributionMode.modeName())
            .commit();
      }
      transaction.commitTransaction();
    }
  }

  /** {@code SET IDENTIFIER FIELDS a, b}: the identifier fields become exactly these. */
  record SetIdentifierFields(List<String> table, List<String> fields) implements ExtensionStatement {
    public SetIdentifierFields {
      table = List.copyOf(table);
      fields = List.copyOf(fields);
    }

    @Override
    public String action() {
      return "SET IDENTIFIER FIELDS " + String.join(", ", fields);
    }

    @Override
    public void applyTo(Table target, boolean caseSensitive) {
      target.updateSchema().caseSensitive(caseSensitive).setIdentifierFields(fields).commit();
    }
  }

  /** {@code DROP IDENTIFIER FIELDS a}: each named field must be an identifier field now. */
  record DropIdentifierFields(List<String> table, List<String> fields) implements ExtensionStatement {
    public DropIdentifierFields {
      table = List.copyOf(table);
      fields = List.copyOf(fields);
    }

    @Override
    public String action() {
      return "DROP IDENTIFIER FIELDS " + String.join(", ", fields);
    }

    @Override
    public void applyTo(Table target, boolean caseSensitive) {
      Schema schema = target.schema();
      Set<Integer> remaining = new HashSet<>(schema.identifierFieldIds());
      for (String field : fields) {
        Types.NestedField column = findField(schema, field, caseSensitive);
        if (column == null) {
          throw new IllegalArgumentException("field " + field + " not found");
        }
        if (!remaining.remove(column.fieldId())) {
          throw new IllegalArgumentException(field + " is not an identifier field");
        }
      }
      Set<String> names =
          remaining.stream().map(schema::findColumnName).collect(Collectors.toSet());
      target.updateSchema().setIdentifierFields(names).commit();
    }
  }

  /** The two kinds of snapshot reference. */
  enum RefKind {
    BRANCH,
    TAG
  }

  /**
   * {@code CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] name} or {@code REPLACE BRANCH|TAG name},
   * with {@code AS OF VERSION}, {@code RETAIN} and (branches only) {@code WITH SNAPSHOT RETENTION}.
   * Without {@code AS OF VERSION} the reference points at the current snapshot; a new branch of a
   * table without snapshots is an empty branch.
   *
   * @param snapshotId the snapshot to point at, or null for the current one
   * @param minSnapshotsToKeep the branch's snapshot retention count, or null
   * @param maxSnapshotAgeMs the branch's snapshot retention age, or null
   * @param maxRefAgeMs how long the reference itself is kept ({@code RETAIN}), or null
   */
  record CreateOrReplaceRef(
      List<String> table,
      RefKind kind,
      String name,
      boolean create,
      boolean replace,
      boolean ifNotExists,
      Long snapshotId,
      Integer minSnapshotsToKeep,
      Long maxSnapshotAgeMs,
      Long maxRefAgeMs)
      implements ExtensionStatement {
    public CreateOrReplaceRef {
      table = List.copyOf(table);
      Objects.requireNonNull(kind, "kind is null");
      Objects.requireNonNull(name, "name is null");
    }

    @Override
    public String action() {
      String verb = create && replace ? "CREATE OR REPLACE" : replace ? "REPLACE" : "CREATE";
      return verb + " " + kind + (ifNotExists ? " IF NOT EXISTS " : " ") + Names.quoted(List.of(name));
    }

    @Override
    public void applyTo(Table target, boolean caseSensitive) {
      Long snapshot = snapshotId;
      if (snapshot == null && target.currentSnapshot() != null) {
        snapshot = target.currentSnapshot().snapshotId();
      }
      boolean exists = target.refs().containsKey(name);
      if (exists && ifNotExists && !replace) {
        return;
      }
      // CREATE OR REPLACE of a missing reference creates it; REPLACE alone needs it to exist
      boolean replacing = replace && (exists || !create);
      if (snapshot == null && (kind == RefKind.TAG || replacing)) {
        throw new IllegalArgumentException(
            "the table has no snapshot to point " + kind.name().toLowerCase(Locale.ROOT) + " " + name + " at");
      }
      ManageSnapshots manage = target.manageSnapshots();
      if (kind == RefKind.BRANCH) {
        if (replacing) {
          manage.replaceBranch(name, snapshot);
        } else if (snapshot == null) {
          manage.createBranch(name);
        } else {
          manage.createBranch(name, snapshot);
        }
        if (minSnapshotsToKeep != null) {
          manage.setMinSnapshotsToKeep(name, minSnapshotsToKeep);
        }
        if (maxSnapshotAgeMs != null) {
          manage.setMaxSnapshotAgeMs(name, maxSnapshotAgeMs);
        }
      } else if (replacing) {
        manage.replaceTag(name, snapshot);
      } else {
        manage.createTag(name, snapshot);
      }
      if (maxRefAgeMs != null) {
        manage.setMaxRefAgeMs(name, maxRefAgeMs);
      }
      manage.commit();
    }
  }

  /** {@code DROP BRANCH|TAG [IF EXISTS] name}. */
  record DropRef(List<String> table, RefKind kind, String name, boolean ifExists)
      implements ExtensionStatement {
    public DropRef {
      table = List.copyOf(table);
      Objects.requireNonNull(kind, "kind is null");
      Objects.requireNonNull(name, "name is null");
    }

    @Override
    public String action() {
      return "DROP " + kind + (ifExists ? " IF EXISTS " : " ") + Names.quoted(List.of(name));
    }

    @Override
    public void applyTo(Table target, boolean caseSensitive) {
      if (ifExists && !target.refs().containsKey(name)) {
        return;
      }
      ManageSnapshots manage = target.manageSnapshots();
      if (kind == RefKind.BRANCH) {
        manage.removeBranch(name);
      } else {
        manage.removeTag(name);
      }
      manage.commit();
    }
  }

  /**
   * Removes a partition field given as a transform, or by its name when the transform is a bare
   * name that is no column of the schema (as the official runtime reads it).
   */
  private static UpdatePartitionSpec removeField(
      UpdatePartitionSpec update, Schema schema, TransformTerm transform, boolean caseSensitive) {
    if (transform.isBareName() && findField(schema, transform.columnName(), caseSensitive) == null) {
      return update.removeField(transform.columnName());
    }
    return update.removeField(transform.toTerm());
  }

  private static Types.NestedField findField(Schema schema, String name, boolean caseSensitive) {
    return caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
  }
}
