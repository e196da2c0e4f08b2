"""An LSTM forecaster: five days of hourly weather readings (7 features) in, the temperature 12 hours later out.

Adapted from "Timeseries forecasting for weather prediction", keras.io,
https://keras.io/examples/timeseries/timeseries_weather_forecasting/ (7 of the Jena climate features, normalized;
windows of 720 ten-minute readings sampled hourly, so 120 LSTM steps; the label 72 readings after the window;
`LSTM(32)` then `Dense(1)`; mean squared error; Adam at 0.001; batches of 256).
What changed: a synthetic ten-minute series is generated here (daily and yearly cycles, weather fronts as a
random walk, noise; pressure, temperature, vapour pressures, humidity, air density and wind derived from them)
instead of downloading the Jena climate CSV; 60 days of readings instead of eight years; the windows are cut by
`keras.utils.timeseries_dataset_from_array` as in the original, then sharded across replicas.
"""
import numpy as np
import tensorflow as tf
import keras

PAST, FUTURE, STEP = 720, 72, 6  # readings every 10 minutes: 5 days in, 12 hours ahead, one reading an hour
FEATURES = 7
BATCH = 256  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


def build_model():
    keras.utils.set_random_seed(33)
    inputs = keras.Input((PAST // STEP, FEATURES))
    h = keras.layers.LSTM(32, name="lstm")(inputs)
    return keras.Model(inputs, keras.layers.Dense(1, name="temperature")(h), name="weather_lstm")


def loss_fn(model, batch):
    x, y = batch
    return tf.reduce_mean(tf.square(model(x, training=True) - y))


def weather(readings: int, seed: int = 33) -> np.ndarray:
    """A normalized (readings, 7) series: pressure, temperature, saturation vapour pressure, vapour pressure
    deficit, specific humidity, air density, wind speed."""
    rng = np.random.default_rng(seed)
    t = np.arange(readings) / 144.0  # days
    front = np.cumsum(rng.normal(0, 0.08, readings))  # slow weather systems
    front -= np.convolve(front, np.ones(1440) / 1440, mode="same")
    temp = 9 - 8 * np.cos(2 * np.pi * (t - 20) / 365) - 4 * np.cos(2 * np.pi * t) + 3 * front
    temp += rng.normal(0, 0.3, readings)
    pressure = 990 - 6 * front + rng.normal(0, 0.5, readings)
    vp_max = 6.1 * np.exp(17.3 * temp / (temp + 237.3))
    humidity = np.clip(0.75 + 0.15 * np.cos(2 * np.pi * t) - 0.1 * front + rng.normal(0, 0.05, readings), 0.2, 1)
    vp_def = vp_max * (1 - humidity)
    specific = 622 * vp_max * humidity / pressure
    density = 100 * pressure / (287.05 * (temp + 273.15)) * 1000
    wind = np.abs(2 + 1.5 * np.abs(np.gradient(front, 1 / 144)) + rng.normal(0, 0.7, readings))
    data = np.stack([pressure, temp, vp_max, vp_def, specific, density, wind], axis=1)
    return ((data - data.mean(0)) / data.std(0)).astype("float32")


def dataset_fn(worker_index, num_workers):
    data = weather(144 * 60)
    x, y = data[:-(PAST + FUTURE)], data[PAST + FUTURE:, 1:2]  # the label: temperature 72 readings after each window
    ds = keras.utils.timeseries_dataset_from_array(x, y, sequence_length=PAST // STEP, sampling_rate=STEP,
                                                   batch_size=None)
    return ds.shard(num_workers, worker_index).repeat().batch(BATCH, drop_remainder=True).prefetch(2)
