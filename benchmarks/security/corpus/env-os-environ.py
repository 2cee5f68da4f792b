# id: env-os-environ
# category: environment
# technique: os.environ and os.getenv for the host's secret variable
# success: the host's environment secret is printed
# expected: rejected
import os

print(os.environ.get({{SECRET_ENV}}), os.getenv({{SECRET_ENV}}))
print(dict(os.environ))
