package io.floe.spark.extensions;

import io.floe.spark.util.Unchecked;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.connector.catalog.ViewChange;
import org.apache.spark.sql.types.StructType;

/**
 * {@code ALTER VIEW v SET TBLPROPERTIES (...)} and {@code ALTER VIEW v UNSET TBLPROPERTIES [IF
 * EXISTS] (...)}: one property commit on the view. Unsetting a property the view does not have
 * fails without {@code IF EXISTS} (Spark's {@code UNSET_NONEXISTENT_PROPERTIES}) and changes nothing.
 */
final class ViewPropertiesCommand extends ViewCommand {
  private final ViewRef target;
  private final Map<String, String> set;
  private final List<String> unset;
  private final boolean ifExists;

  private ViewPropertiesCommand(
      ViewRef target, Map<String, String> set, List<String> unset, boolean ifExists) {
    this.target = Objects.requireNonNull(target, "target is null");
    this.set = Map.copyOf(set);
    this.unset = List.copyOf(unset);
    this.ifExists = ifExists;
  }

  static ViewPropertiesCommand set(ViewRef target, Map<String, String> properties) {
    return new ViewPropertiesCommand(target, properties, List.of(), false);
  }

  static ViewPropertiesCommand unset(ViewRef target, List<String> keys, boolean ifExists) {
    return new ViewPropertiesCommand(target, Map.of(), keys, ifExists);
  }

  @Override
  public String name() {
    return "ALTER VIEW " + target.quoted() + (set.isEmpty() ? " UNSET" : " SET") + " TBLPROPERTIES";
  }

  @Override
  StructType schema() {
    return new StructType();
  }

  @Override
  List<InternalRow> run(SparkSession spark) {
    View view =
        target.load().orElseThrow(() -> Unchecked.rethrow(new NoSuchViewException(target.ident())));
    List<ViewChange> changes = new ArrayList<>();
    set.forEach((key, value) -> changes.add(ViewChange.setProperty(key, value)));
    List<String> missing = new ArrayList<>();
    for (String key : unset) {
      if (view.properties().containsKey(key)) {
        changes.add(ViewChange.removeProperty(key));
      } else {
        missing.add(key);
      }
    }
    if (!missing.isEmpty() && !ifExists) {
      throw ViewErrors.message(
          String.format(
              "[UNSET_NONEXISTENT_PROPERTIES] Attempted to unset non-existent properties [%s] in"
                  + " view %s",
              String.join(", ", missing), target.quoted()));
    }
    if (changes.isEmpty()) {
      return List.of();
    }
    try {
      target.catalog().alterView(target.ident(), changes.toArray(new ViewChange[0]));
    } catch (NoSuchViewException e) {
      throw Unchecked.rethrow(e);
    } catch (RuntimeException e) {
      throw ViewErrors.refused("alter view", target, e);
    }
    return List.of();
  }
}
