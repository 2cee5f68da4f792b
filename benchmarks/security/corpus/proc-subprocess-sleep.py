# id: proc-subprocess-sleep
# category: processes
# technique: subprocess.Popen of a shell that sleeps, started in its own session
# success: a process carrying the case's nonce is alive after the session
# expected: rejected
import subprocess

subprocess.Popen(["sh", "-c", "sleep 60; : " + {{NONCE}}], start_new_session=True)
