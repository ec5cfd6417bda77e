package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A source that wraps another must pass every method of {@link ChangeSource} on, defaults included:
 * a default it does not override answers for the wrapped source with the interface's behaviour
 * instead (the registered source once hid the tail's read barrier that way, and with it
 * read-your-writes, and its retry pause). Every wrapper extends {@link ForwardingChangeSource}, and
 * every method of the interface reaches the wrapped source through it with its arguments, its
 * answer coming back: a method added to the interface and not passed on fails here.
 */
class ChangeSourceWrappersTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "io.tablecast.server.tail.ChangeSources$RegisteredSource",
        "io.tablecast.server.stream.StreamCapture$Resuming"
      })
  void aWrappingSourceExtendsTheForwardingOne(String wrapper) throws Exception {
    assertThat(Class.forName(wrapper).getSuperclass()).isEqualTo(ForwardingChangeSource.class);
  }

  @Test
  void everyMethodOfTheInterfaceIsPassedOnWithItsArgumentsAndItsAnswer() throws Exception {
    List<String> reached = new ArrayList<>();
    List<Object[]> arguments = new ArrayList<>();
    InvocationHandler wrapped =
        (proxy, method, args) -> {
          reached.add(method.getName());
          arguments.add(args == null ? new Object[0] : args);
          return answerOf(method.getReturnType());
        };
    ChangeSource source =
        (ChangeSource)
            Proxy.newProxyInstance(
                ChangeSource.class.getClassLoader(), new Class<?>[] {ChangeSource.class}, wrapped);
    ChangeSource forwarding = new ForwardingChangeSource(source) {};

    List<Method> methods =
        Arrays.stream(ChangeSource.class.getMethods())
            .filter(m -> !Modifier.isStatic(m.getModifiers()))
            .toList();
    assertThat(methods).as("the interface's methods").hasSizeGreaterThanOrEqualTo(15);
    for (Method method : methods) {
      assertThat(
              ForwardingChangeSource.class
                  .getDeclaredMethod(method.getName(), method.getParameterTypes())
                  .getDeclaringClass())
          .as("%s is overridden", method)
          .isEqualTo(ForwardingChangeSource.class);

      reached.clear();
      arguments.clear();
      Object[] args = argumentsFor(method);
      Object answer = method.invoke(forwarding, args);

      assertThat(reached)
          .as("%s reached the wrapped source once", method)
          .containsExactly(method.getName());
      assertThat(arguments.get(0)).as("%s passed its arguments on", method).containsExactly(args);
      if (method.getReturnType() != void.class) {
        assertThat(answer)
            .as("%s answered what the wrapped source answered", method)
            .isSameAs(answerOf(method.getReturnType()));
      }
    }
  }

  private static final Duration DURATION = Duration.ofMillis(1234);
  private static final String TEXT = "the wrapped source's answer";
  private static final Optional<ReadBarrier> BARRIER = Optional.empty();
  private static final OptionalLong FROM = OptionalLong.of(42);
  private static final List<Object> LIST = List.of();
  private static final Long LONG = 7L;

  /** One answer per return type, the same instance every time (compared by identity). */
  private static Object answerOf(Class<?> type) {
    if (type == void.class) {
      return null;
    } else if (type == Duration.class) {
      return DURATION;
    } else if (type == String.class) {
      return TEXT;
    } else if (type == Optional.class) {
      return BARRIER;
    } else if (type == OptionalLong.class) {
      return FROM;
    } else if (type == List.class) {
      return LIST;
    } else if (type == CommittedBatch.class) {
      return CommittedBatch.EMPTY;
    } else if (type == long.class) {
      return LONG;
    }
    throw new AssertionError("no answer for " + type + ": add one to this test");
  }

  private static Object[] argumentsFor(Method method) {
    Class<?>[] types = method.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> type = types[i];
      if (type == String.class) {
        args[i] = "argument " + i;
      } else if (type == long.class) {
        args[i] = 99L;
      } else if (type == Duration.class) {
        args[i] = Duration.ofSeconds(3);
      } else if (type == List.class) {
        args[i] = List.of();
      } else if (type == ChangeSource.SnapshotSink.class) {
        args[i] = (ChangeSource.SnapshotSink) (table, row) -> {};
      } else {
        throw new AssertionError("no argument of " + type + " for " + method + ": add one");
      }
    }
    return args;
  }
}
