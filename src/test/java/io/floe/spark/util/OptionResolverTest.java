package io.floe.spark.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.Test;

class OptionResolverTest {
  private static final String PREFIX = "spark.floe.read.";

  private static OptionResolver resolver(
      Map<String, String> options, Map<String, String> session, Map<String, String> table) {
    SQLConf conf = new SQLConf();
    session.forEach(conf::setConfString);
    return new OptionResolver("Cannot read", options, conf, PREFIX, table);
  }

  @Test
  void theOptionWinsOverSessionConfOverTablePropertyOverDefault() {
    Map<String, String> table = Map.of("read.size", "3");
    Map<String, String> session = Map.of(PREFIX + "size", "2");

    assertThat(resolver(Map.of("SIZE", "1"), session, table).longValue("size", "read.size", 4))
        .isEqualTo(1);
    assertThat(resolver(Map.of(), session, table).longValue("size", "read.size", 4)).isEqualTo(2);
    assertThat(resolver(Map.of(), Map.of(), table).longValue("size", "read.size", 4)).isEqualTo(3);
    assertThat(resolver(Map.of(), Map.of(), Map.of()).longValue("size", "read.size", 4))
        .isEqualTo(4);
    assertThat(resolver(Map.of(), Map.of(), table).longValue("size", null, 4)).isEqualTo(4);
    assertThat(resolver(Map.of(), session, table).optionOnly("size")).isNull();
  }

  @Test
  void badValuesFailNamingTheActionTheOptionAndTheValue() {
    OptionResolver resolver =
        resolver(Map.of("n", "x", "big", "3000000000", "flag", "yes"), Map.of(), Map.of());

    assertThatThrownBy(() -> resolver.longValue("n", null, 0))
        .hasMessage("Cannot read: option 'n' must be a whole number, not 'x'");
    assertThatThrownBy(() -> resolver.intValue("big", null, 0))
        .hasMessage("Cannot read: option 'big' is out of range: '3000000000'");
    assertThatThrownBy(() -> resolver.booleanValue("flag", null, false))
        .hasMessage("Cannot read: option 'flag' must be true or false, not 'yes'");
    assertThatThrownBy(() -> resolver.rejectUnknown(Set.of("n", "big"), "read"))
        .hasMessage("Cannot read: unknown read option(s) [flag]; known options are [big, n]");
  }
}
