"""One ``tf.distribute.Server`` (job ``worker``) for the testbed tests: ``_tf_server.py TASK HOST:PORT ...``."""
import sys

import tensorflow as tf

task, workers = int(sys.argv[1]), sys.argv[2:]
config = tf.compat.v1.ConfigProto()
config.experimental.collective_group_leader = "/job:worker/replica:0/task:0"
server = tf.distribute.Server({"worker": workers}, job_name="worker", task_index=task, config=config, start=True)
print(f"ready {server.target}", flush=True)
server.join()
