// The CPU seconds of Weka's J48 buildClassifier (its defaults, -C 0.25 -M 2) on one ARFF
// file, best of R fits, as benchmarks/bench_c45.py sets them beside dtree's. Run with the
// java launcher's source mode (Java 11+), no javac needed:
//     java -cp /usr/share/java/weka.jar benchmarks/J48Fit.java DATA.arff [R]
// Prints "fit_cpu_s fit_wall_s leaves" of the fastest fit; the file's reading is not timed.
import java.io.FileReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import weka.classifiers.trees.J48;
import weka.core.Instances;

public class J48Fit {
    public static void main(String[] args) throws Exception {
        Instances data = new Instances(new FileReader(args[0]));
        data.setClassIndex(data.numAttributes() - 1);
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double bestCpu = Double.MAX_VALUE, bestWall = 0;
        double leaves = 0;
        for (int i = 0; i < repeats; i++) {
            J48 tree = new J48();
            long cpu = threads.getCurrentThreadCpuTime(), wall = System.nanoTime();
            tree.buildClassifier(data);
            double cpuS = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
            double wallS = (System.nanoTime() - wall) / 1e9;
            if (cpuS < bestCpu) {
                bestCpu = cpuS;
                bestWall = wallS;
                leaves = tree.measureNumLeaves();
            }
        }
        System.out.printf("%.4f %.4f %d%n", bestCpu, bestWall, (long) leaves);
    }
}
