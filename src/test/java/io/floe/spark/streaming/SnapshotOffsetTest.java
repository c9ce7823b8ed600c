package io.floe.spark.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.util.JsonUtil;
import org.junit.jupiter.api.Test;

/** Offsets read and write the official runtime's JSON, plus Floe's optional table UUID. */
class SnapshotOffsetTest {

  @Test
  void readsAnOffsetTheOfficialRuntimeWrote() {
    // the form of org.apache.iceberg.spark.source.StreamingOffset#json
    SnapshotOffset offset =
        SnapshotOffset.fromJson(
            "{\"version\":1,\"snapshot_id\":6394713125384402563,\"position\":3,\"scan_all_files\":false}");
    assertThat(offset.snapshotId()).isEqualTo(6394713125384402563L);
    assertThat(offset.position()).isEqualTo(3);
    assertThat(offset.scanAllFiles()).isFalse();
    assertThat(offset.tableUuid()).isNull();
  }

  @Test
  void writesTheOfficialFieldsAndTheTableUuid() throws Exception {
    SnapshotOffset offset = new SnapshotOffset(42L, 7L, true, "3f1c4a2e-0000-4000-8000-000000000001");
    var node = JsonUtil.mapper().readTree(offset.json());
    assertThat(JsonUtil.getInt("version", node)).isEqualTo(1);
    assertThat(JsonUtil.getLong("snapshot_id", node)).isEqualTo(42L);
    assertThat(JsonUtil.getInt("position", node)).isEqualTo(7);
    assertThat(JsonUtil.getBool("scan_all_files", node)).isTrue();
    assertThat(SnapshotOffset.fromJson(offset.json())).isEqualTo(offset);
    assertThat(SnapshotOffset.fromJson(offset.json()).tableUuid()).isEqualTo(offset.tableUuid());
    assertThat(new SnapshotOffset(42L, 7L, false, null).json())
        .isEqualTo("{\"version\":1,\"snapshot_id\":42,\"position\":7,\"scan_all_files\":false}");
  }

  @Test
  void startOffsetIsTheOfficialRuntimes() {
    assertThat(SnapshotOffset.START.json())
        .isEqualTo("{\"version\":1,\"snapshot_id\":-1,\"position\":-1,\"scan_all_files\":false}");
    assertThat(SnapshotOffset.fromJson(SnapshotOffset.START.json()).isStart()).isTrue();
  }

  @Test
  void otherVersionsAndOtherJsonFailClearly() {
    assertThatThrownBy(
            () -> SnapshotOffset.fromJson("{\"version\":2,\"snapshot_id\":1,\"position\":0,\"scan_all_files\":false}"))
        .hasMessageContaining("version 2 is not supported");
    assertThatThrownBy(() -> SnapshotOffset.fromJson("{\"offset\":5}"))
        .hasMessageContaining("not a Floe or Iceberg offset");
    assertThatThrownBy(() -> SnapshotOffset.fromJson("5 apples"))
        .hasMessageContaining("Cannot read stream offset");
  }
}
