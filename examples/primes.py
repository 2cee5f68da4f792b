# A tool-free computation that ends with final_result: the first primes and their sum.
import math


def is_prime(n: int) -> bool:
    if n < 2:
        return False
    return all(n % d for d in range(2, math.isqrt(n) + 1))


primes = [n for n in range(2, 100) if is_prime(n)]
print(f"found {len(primes)} primes below 100")
final_result({"count": len(primes), "sum": sum(primes), "largest": primes[-1]})
