package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.Test;

/**
 * The distribution mode of each row-level command and mode: the official runtime's defaults, and
 * the order of write option, Floe's session conf, the official session conf and the command's
 * table property.
 */
class RowLevelDistributionModeTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "p", Types.IntegerType.get()));
  private static final PartitionSpec BY_P = PartitionSpec.builderFor(SCHEMA).identity("p").build();
  private static final PartitionSpec NONE = PartitionSpec.unpartitioned();
  private static final SortOrder BY_ID = SortOrder.builderFor(SCHEMA).asc("id").build();
  private static final SortOrder UNSORTED = SortOrder.unsorted();

  private static DistributionMode copyOnWrite(
      Command command,
      Map<String, String> options,
      SQLConf session,
      Map<String, String> properties,
      PartitionSpec spec,
      SortOrder order,
      DistributionMode insertMode) {
    return RowLevelDistributionMode.copyOnWrite(
        "db.t", command, options, session, properties, spec, order, insertMode);
  }

  @Test
  void copyOnWriteDeleteAndUpdateDefaultToHashWhateverTheInsertsMode() {
    for (Command command : new Command[] {Command.DELETE, Command.UPDATE}) {
      for (PartitionSpec spec : new PartitionSpec[] {BY_P, NONE}) {
        assertThat(copyOnWrite(command, Map.of(), new SQLConf(), Map.of(), spec, BY_ID, DistributionMode.NONE))
            .as("%s of %s", command, spec)
            .isEqualTo(DistributionMode.HASH);
      }
    }
  }

  @Test
  void copyOnWriteMergeDefaultsToHashWhenPartitionedElseToTheInsertsMode() {
    SQLConf session = new SQLConf();
    assertThat(copyOnWrite(Command.MERGE, Map.of(), session, Map.of(), BY_P, UNSORTED, DistributionMode.NONE))
        .isEqualTo(DistributionMode.HASH);
    assertThat(copyOnWrite(Command.MERGE, Map.of(), session, Map.of(), NONE, UNSORTED, null))
        .isEqualTo(DistributionMode.NONE);
    assertThat(copyOnWrite(Command.MERGE, Map.of(), session, Map.of(), NONE, BY_ID, null))
        .isEqualTo(DistributionMode.RANGE);
    assertThat(copyOnWrite(Command.MERGE, Map.of(), session, Map.of(), NONE, BY_ID, DistributionMode.HASH))
        .as("hash with nothing to hash by")
        .isEqualTo(DistributionMode.NONE);
    assertThat(copyOnWrite(Command.MERGE, Map.of(), session, Map.of(), NONE, UNSORTED, DistributionMode.RANGE))
        .as("range with nothing to order by")
        .isEqualTo(DistributionMode.NONE);
    assertThat(
            copyOnWrite(
                Command.MERGE, Map.of(), session, Map.of("write.merge.distribution-mode", "hash"),
                NONE, BY_ID, null))
        .isEqualTo(DistributionMode.NONE);
    assertThat(
            copyOnWrite(
                Command.MERGE, Map.of(), session, Map.of("write.merge.distribution-mode", "none"),
                BY_P, BY_ID, null))
        .isEqualTo(DistributionMode.NONE);
  }

  @Test
  void optionThenFloeSessionConfThenOfficialSessionConfThenTheCommandsProperty() {
    Map<String, String> properties =
        Map.of("write.delete.distribution-mode", "range", "write.distribution-mode", "hash");
    SQLConf session = new SQLConf();
    assertThat(copyOnWrite(Command.DELETE, Map.of(), session, properties, BY_P, UNSORTED, null))
        .isEqualTo(DistributionMode.RANGE);
    session.setConfString("spark.sql.iceberg.distribution-mode", "none");
    assertThat(copyOnWrite(Command.DELETE, Map.of(), session, properties, BY_P, UNSORTED, null))
        .isEqualTo(DistributionMode.NONE);
    session.setConfString("spark.floe.write.distribution-mode", "hash");
    assertThat(copyOnWrite(Command.DELETE, Map.of(), session, properties, BY_P, UNSORTED, null))
        .isEqualTo(DistributionMode.HASH);
    assertThat(
            copyOnWrite(
                Command.DELETE, Map.of("Distribution-Mode", "RANGE"), session, properties, BY_P,
                UNSORTED, null))
        .isEqualTo(DistributionMode.RANGE);
  }

  @Test
  void mergeOnReadDefaultsToHashForEveryCommandAndReadsTheSameChain() {
    for (Command command : Command.values()) {
      assertThat(RowLevelDistributionMode.mergeOnRead("db.t", command, Map.of(), new SQLConf(), Map.of()))
          .isEqualTo(DistributionMode.HASH);
    }
    SQLConf session = new SQLConf();
    session.setConfString("spark.sql.iceberg.distribution-mode", "none");
    assertThat(
            RowLevelDistributionMode.mergeOnRead(
                "db.t", Command.UPDATE, Map.of(), session,
                Map.of("write.update.distribution-mode", "range")))
        .isEqualTo(DistributionMode.NONE);
    assertThat(
            MergeOnReadOptions.resolve(
                    "db.t", Command.MERGE, Map.of(), new SQLConf(),
                    Map.of("write.merge.distribution-mode", "range"))
                .distributionMode())
        .isEqualTo(DistributionMode.RANGE);
  }

  @Test
  void anUnknownModeNamesTheOptionAndTheCommandsProperty() {
    assertThatThrownBy(
            () ->
                copyOnWrite(
                    Command.UPDATE, Map.of(), new SQLConf(),
                    Map.of("write.update.distribution-mode", "random"), BY_P, UNSORTED, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot UPDATE db.t: option 'distribution-mode' or table property"
                + " 'write.update.distribution-mode' must be none, hash or range, not 'random'");
  }
}
