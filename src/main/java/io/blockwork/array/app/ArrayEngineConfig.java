package io.blockwork.array.app;

import io.blockwork.engine.md.MdArrays;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.event.HealthWatch;
import io.blockwork.shared.device.RegisteredDevice;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The engine's array table, resolving member names through the device registry (live devices
 * only); every array it builds tells the {@link HealthWatch} what happens to it.
 */
@Configuration
class ArrayEngineConfig {

    @Bean
    MdArrays mdArrays(DeviceRegistry registry, HealthWatch events) {
        return new MdArrays(name -> registry.find(name).filter(RegisteredDevice::live)
                .map(RegisteredDevice::device).orElse(null), events);
    }
}
