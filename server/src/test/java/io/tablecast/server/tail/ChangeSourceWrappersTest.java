package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A source that wraps another must pass every method of {@link ChangeSource} on, defaults included:
 * a default it does not override answers for the wrapped source with the interface's behaviour
 * instead (the registered source once hid the tail's read barrier that way, and with it
 * read-your-writes, and its retry pause).
 */
class ChangeSourceWrappersTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "io.tablecast.server.tail.ChangeSources$RegisteredSource",
        "io.tablecast.server.stream.StreamCapture$Resuming"
      })
  void aWrappingSourceOverridesEveryMethodOfTheInterface(String wrapper) throws Exception {
    Class<?> c = Class.forName(wrapper);
    assertThat(ChangeSource.class).isAssignableFrom(c);
    List<String> missing = new ArrayList<>();
    for (Method m : ChangeSource.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      boolean declared = false;
      for (Method d : c.getDeclaredMethods()) {
        declared |=
            d.getName().equals(m.getName())
                && Arrays.equals(d.getParameterTypes(), m.getParameterTypes());
      }
      if (!declared) {
        missing.add(m.getName());
      }
    }
    assertThat(missing).as("methods %s does not pass on to the source it wraps", wrapper).isEmpty();
  }
}
