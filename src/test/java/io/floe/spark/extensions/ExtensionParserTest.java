package io.floe.spark.extensions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.extensions.ExtensionStatement.AddPartitionField;
import io.floe.spark.extensions.ExtensionStatement.CreateOrReplaceRef;
import io.floe.spark.extensions.ExtensionStatement.DropIdentifierFields;
import io.floe.spark.extensions.ExtensionStatement.DropPartitionField;
import io.floe.spark.extensions.ExtensionStatement.DropRef;
import io.floe.spark.extensions.ExtensionStatement.RefKind;
import io.floe.spark.extensions.ExtensionStatement.ReplacePartitionField;
import io.floe.spark.extensions.ExtensionStatement.SetIdentifierFields;
import io.floe.spark.extensions.ExtensionStatement.SetWriteOrder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.SortDirection;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The extension grammar on its own: what each statement parses to, which statements are left to
 * Spark's parser, and where a bad statement's error points. The effects on tables are checked on a
 * real session in {@link ExtensionDdlTest}.
 */
class ExtensionParserTest {
  private static final List<String> T = List.of("db", "t");

  private static ExtensionStatement parse(String sql) {
    return ExtensionParser.parse(sql).orElseThrow(() -> new AssertionError("not parsed: " + sql));
  }

  private static TransformTerm column(String... parts) {
    return new TransformTerm(TransformTerm.IDENTITY, List.of(parts), null, true);
  }

  private static TransformTerm apply(String function, Integer width, String... parts) {
    return new TransformTerm(function, List.of(parts), width, false);
  }

  @Test
  void partitionFieldStatements() {
    assertThat(parse("ALTER TABLE db.t ADD PARTITION FIELD bucket(16, id) AS shard"))
        .isEqualTo(new AddPartitionField(T, apply("bucket", 16, "id"), "shard"));
    assertThat(parse("alter table db.t add partition field truncate(id, 4)"))
        .isEqualTo(new AddPartitionField(T, apply("truncate", 4, "id"), null));
    assertThat(parse("ALTER TABLE db.t ADD PARTITION FIELD `point`.x"))
        .isEqualTo(new AddPartitionField(T, column("point", "x"), null));
    assertThat(parse("ALTER TABLE db.t DROP PARTITION FIELD shard"))
        .isEqualTo(new DropPartitionField(T, column("shard")));
    assertThat(parse("ALTER TABLE db.t REPLACE PARTITION FIELD date(ts) WITH hour(ts) AS h;"))
        .isEqualTo(new ReplacePartitionField(T, apply("days", null, "ts"), apply("hours", null, "ts"), "h"));
  }

  @Test
  void transformAliasesMapToTheirCanonicalNames() {
    for (String alias : List.of("year", "years")) {
      assertThat(((AddPartitionField) parse("ALTER TABLE t ADD PARTITION FIELD " + alias + "(ts)")).transform().function())
          .isEqualTo("years");
    }
    assertThat(((AddPartitionField) parse("ALTER TABLE t ADD PARTITION FIELD date_hour(ts)")).transform().function())
        .isEqualTo("hours");
    assertThat(((AddPartitionField) parse("ALTER TABLE t ADD PARTITION FIELD identity(c)")).transform())
        .isEqualTo(new TransformTerm(TransformTerm.IDENTITY, List.of("c"), null, false));
  }

  @Test
  void writeOrderSetsTheOfficialDistributionModes() {
    OrderField idDesc = new OrderField(column("id"), SortDirection.DESC, NullOrder.NULLS_LAST);
    OrderField bucketAsc =
        new OrderField(apply("bucket", 4, "data"), SortDirection.ASC, NullOrder.NULLS_FIRST);
    assertThat(parse("ALTER TABLE db.t WRITE ORDERED BY id DESC, bucket(4, data)"))
        .isEqualTo(new SetWriteOrder(T, DistributionMode.RANGE, List.of(idDesc, bucketAsc)));
    assertThat(parse("ALTER TABLE db.t WRITE LOCALLY ORDERED BY (id DESC, bucket(4, data) ASC)"))
        .isEqualTo(new SetWriteOrder(T, null, List.of(idDesc, bucketAsc)));
    assertThat(parse("ALTER TABLE db.t WRITE DISTRIBUTED BY PARTITION LOCALLY ORDERED BY id DESC"))
        .isEqualTo(new SetWriteOrder(T, DistributionMode.HASH, List.of(idDesc)));
    assertThat(parse("ALTER TABLE db.t WRITE LOCALLY ORDERED BY id DESC DISTRIBUTED BY PARTITION"))
        .isEqualTo(new SetWriteOrder(T, DistributionMode.HASH, List.of(idDesc)));
    assertThat(parse("ALTER TABLE db.t WRITE DISTRIBUTED BY PARTITION"))
        .isEqualTo(new SetWriteOrder(T, DistributionMode.HASH, List.of()));
    assertThat(parse("ALTER TABLE db.t WRITE UNORDERED"))
        .isEqualTo(new SetWriteOrder(T, DistributionMode.NONE, List.of()));
    assertThat(parse("ALTER TABLE db.t WRITE ORDERED BY id ASC NULLS LAST"))
        .isEqualTo(
            new SetWriteOrder(
                T,
                DistributionMode.RANGE,
                List.of(new OrderField(column("id"), SortDirection.ASC, NullOrder.NULLS_LAST))));
  }

  @Test
  void identifierFields() {
    assertThat(parse("ALTER TABLE db.t SET IDENTIFIER FIELDS id, `point`.x"))
        .isEqualTo(new SetIdentifierFields(T, List.of("id", "point.x")));
    assertThat(parse("ALTER TABLE db.t DROP IDENTIFIER FIELDS id"))
        .isEqualTo(new DropIdentifierFields(T, List.of("id")));
  }

  @Test
  void branchesAndTags() {
    long day = TimeUnit.DAYS.toMillis(1);
    assertThat(
            parse(
                "ALTER TABLE db.t CREATE BRANCH IF NOT EXISTS b AS OF VERSION 42 RETAIN 7 DAYS"
                    + " WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 HOURS"))
        .isEqualTo(
            new CreateOrReplaceRef(
                T, RefKind.BRANCH, "b", true, false, true, 42L, 3, TimeUnit.HOURS.toMillis(2), 7 * day));
    assertThat(parse("ALTER TABLE db.t CREATE OR REPLACE BRANCH `b-1` WITH SNAPSHOT RETENTION 5 MINUTES"))
        .isEqualTo(
            new CreateOrReplaceRef(
                T, RefKind.BRANCH, "b-1", true, true, false, null, null, TimeUnit.MINUTES.toMillis(5), null));
    assertThat(parse("ALTER TABLE db.t REPLACE TAG v1 AS OF VERSION 7"))
        .isEqualTo(new CreateOrReplaceRef(T, RefKind.TAG, "v1", false, true, false, 7L, null, null, null));
    assertThat(parse("ALTER TABLE db.t CREATE TAG v1 RETAIN 1 DAYS"))
        .isEqualTo(new CreateOrReplaceRef(T, RefKind.TAG, "v1", true, false, false, null, null, null, day));
    assertThat(parse("ALTER TABLE db.t DROP BRANCH IF EXISTS b"))
        .isEqualTo(new DropRef(T, RefKind.BRANCH, "b", true));
    assertThat(parse("ALTER TABLE db.t DROP TAG v1"))
        .isEqualTo(new DropRef(T, RefKind.TAG, "v1", false));
  }

  @Test
  void commentsAndQuotedNamesAreRead() {
    assertThat(
            parse(
                "-- evolve\nALTER TABLE /* the table */ `my db`.`t``x`\n  ADD PARTITION FIELD"
                    + " bucket(16, `id`) -- sharded\n"))
        .isEqualTo(new AddPartitionField(List.of("my db", "t`x"), apply("bucket", 16, "id"), null));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT 'ALTER TABLE t ADD PARTITION FIELD x'",
        "ALTER TABLE t ADD PARTITION (p = 1)",
        "ALTER TABLE t DROP PARTITION (p = 1)",
        "ALTER TABLE t ADD COLUMNS (c INT)",
        "ALTER TABLE t SET TBLPROPERTIES ('write ordered by' = 'x')",
        "ALTER TABLE t REPLACE COLUMNS (c INT)",
        "ALTER TABLE t SET LOCATION '/tmp/x'",
        "ALTER VIEW v AS SELECT 1",
        "ALTER TABLE t RENAME TO u",
        "ALTER TABLE 't ADD PARTITION FIELD x"
      })
  void statementsSparkParsesAreLeftToSpark(String sql) {
    assertThat(ExtensionParser.parse(sql)).isEmpty();
  }

  @Test
  void unknownTransformIsAnErrorAtItsName() {
    assertThatThrownBy(() -> parse("ALTER TABLE db.t ADD PARTITION FIELD foo(id)"))
        .isInstanceOf(ParseException.class)
        .hasMessageContaining("PARSE_SYNTAX_ERROR")
        .hasMessageContaining("'foo'")
        .hasMessageContaining("unknown transform foo")
        .hasMessageContaining("pos 37");
  }

  @Test
  void badStatementsNameWhatIsWrongAndWhere() {
    assertThatThrownBy(() -> parse("ALTER TABLE t ADD PARTITION FIELD bucket(id)"))
        .hasMessageContaining("needs a width")
        .hasMessageContaining("pos 43");
    assertThatThrownBy(() -> parse("ALTER TABLE t ADD PARTITION FIELD bucket(0, id)"))
        .hasMessageContaining("must be a positive integer");
    assertThatThrownBy(() -> parse("ALTER TABLE t ADD PARTITION FIELD days(ts, 3)"))
        .hasMessageContaining("takes a column only");
    assertThatThrownBy(() -> parse("ALTER TABLE t WRITE ORDERED BY"))
        .hasMessageContaining("end of input")
        .hasMessageContaining("expected a column or a transform");
    assertThatThrownBy(() -> parse("ALTER TABLE t WRITE ORDERED BY a UNORDERED"))
        .hasMessageContaining("multiple ordering clauses");
    assertThatThrownBy(() -> parse("ALTER TABLE t WRITE"))
        .hasMessageContaining("expected DISTRIBUTED BY PARTITION");
    assertThatThrownBy(() -> parse("ALTER TABLE t CREATE OR REPLACE BRANCH IF NOT EXISTS b"))
        .hasMessageContaining("'IF'")
        .hasMessageContaining("IF NOT EXISTS cannot be combined with REPLACE");
    assertThatThrownBy(() -> parse("ALTER TABLE t CREATE TAG v WITH SNAPSHOT RETENTION 2 SNAPSHOTS"))
        .hasMessageContaining("'WITH'");
    assertThatThrownBy(() -> parse("ALTER TABLE t CREATE BRANCH b RETAIN 2 WEEKS"))
        .hasMessageContaining("'WEEKS'")
        .hasMessageContaining("expected DAYS, HOURS or MINUTES");
    assertThatThrownBy(() -> parse("ALTER TABLE t WRITE ORDERED BY zorder(a, b)"))
        .hasMessageContaining("zorder");
    assertThatThrownBy(() -> parse("ALTER TABLE t\nDROP PARTITION FIELD x y"))
        .hasMessageContaining("'y'")
        .hasMessageContaining("line 2, pos 23");
  }
}
