package io.blockwork.service.array;

import io.blockwork.engine.md.MdArrays;
import io.blockwork.service.device.DeviceRegistry;
import io.blockwork.service.event.HealthWatch;
import io.blockwork.service.device.RegisteredDevice;
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
