package io.rdma.spring.connection;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How a group addresses a service's instances by key: {@code forKey} among those connected now,
 * {@code ownerOf} among every one followed, so that a key stays with an instance whose connection
 * is down, and both move only the keys of an instance that is gone.
 */
class ServiceGroupTests {

    private static final List<String> KEYS = IntStream.range(0, 256).mapToObj(key -> "key-" + key).toList();

    private final List<String> connected = new ArrayList<>(List.of("kv@a", "kv@b", "kv@c"));
    private final List<String> followed = new ArrayList<>(List.of("kv@a", "kv@b", "kv@c"));
    private final ServiceGroup group = new ServiceGroup("kv", "kv-store", () -> List.copyOf(connected),
            () -> List.copyOf(followed));

    @Test
    void whileEveryInstanceIsConnectedOwnerOfAndForKeyAgreeAndSpreadTheKeys() {
        Map<String, String> owners = owners();
        KEYS.forEach(key -> assertThat(group.forKey(key)).isEqualTo(owners.get(key)));
        assertThat(owners.values()).contains("kv@a", "kv@b", "kv@c");
    }

    @Test
    void aKeyStaysWithItsInstanceWhileThatInstancesConnectionIsDown() {
        Map<String, String> before = owners();
        connected.remove("kv@b");

        KEYS.forEach(key -> assertThat(group.ownerOf(key)).as(key).isEqualTo(before.get(key)));
        List<String> ofB = KEYS.stream().filter(key -> before.get(key).equals("kv@b")).toList();
        assertThat(ofB).isNotEmpty();
        ofB.forEach(key -> assertThat(group.forKey(key)).as("forKey moves " + key).isIn("kv@a", "kv@c"));
    }

    @Test
    void whenAnInstanceLeavesOnlyItsKeysMove() {
        Map<String, String> before = owners();
        connected.remove("kv@b");
        followed.remove("kv@b");

        KEYS.forEach(key -> {
            String owner = group.ownerOf(key);
            if (before.get(key).equals("kv@b")) {
                assertThat(owner).as(key).isIn("kv@a", "kv@c");
            } else {
                assertThat(owner).as(key).isEqualTo(before.get(key));
            }
        });
    }

    @Test
    void withNoInstanceFollowedOwnerOfSaysSo() {
        connected.clear();
        assertThat(group.ownerOf("key-1")).as("still followed, reconnecting").isNotNull();
        followed.clear();

        assertThatThrownBy(() -> group.ownerOf("key-1")).isInstanceOf(NoServiceInstanceException.class)
                .hasMessageContaining("kv-store");
        assertThatThrownBy(() -> group.forKey("key-1")).isInstanceOf(NoServiceInstanceException.class);
    }

    private Map<String, String> owners() {
        Map<String, String> owners = new HashMap<>();
        KEYS.forEach(key -> owners.put(key, group.ownerOf(key)));
        return owners;
    }
}
