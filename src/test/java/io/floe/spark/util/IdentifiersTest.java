package io.floe.spark.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class IdentifiersTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(
              2,
              "out`er",
              Types.StructType.of(Types.NestedField.optional(3, "odd.name", Types.IntegerType.get()))));
  private static final Map<Integer, Integer> PARENTS = TypeUtil.indexParents(SCHEMA.asStruct());

  @Test
  void quotingWrapsInBackticksAndDoublesBackticksInside() {
    assertThat(Identifiers.quote("plain")).isEqualTo("`plain`");
    assertThat(Identifiers.quote("a.b")).isEqualTo("`a.b`");
    assertThat(Identifiers.quote("a`b")).isEqualTo("`a``b`");
  }

  @Test
  void nestedColumnPathQuotesEveryPart() {
    assertThat(Identifiers.quotedPath(SCHEMA, PARENTS, 1)).isEqualTo("`id`");
    assertThat(Identifiers.quotedPath(SCHEMA, PARENTS, 3)).isEqualTo("`out``er`.`odd.name`");
  }

  @Test
  void pathOfAnIdNotInTheSchemaIsNull() {
    assertThat(Identifiers.quotedPath(SCHEMA, PARENTS, 99)).isNull();
  }
}
