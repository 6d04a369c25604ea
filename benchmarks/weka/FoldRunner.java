import java.io.BufferedReader;
import java.io.FileReader;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import weka.classifiers.Classifier;
import weka.core.Instance;
import weka.core.Instances;
import weka.filters.Filter;

/**
 * Runs one Weka 3.6 classifier on many train/test ARFF pairs in a single JVM.
 *
 * Usage: java -cp weka.jar:DIR FoldRunner CLASS [OPTIONS ...] --- TRAIN TEST [TRAIN TEST ...]
 *
 * Prints one line per test instance: "fold predicted p0,p1,..." with the class
 * distribution at full precision.  For weka.classifiers.functions.SMO the line
 * also holds, after " | ", the output of each pairwise machine (i, j), i < j, on
 * the filtered instance (positive: class j, as in SMO.distributionForInstance);
 * "nan" when the machine was not built.  The class value of each test instance is
 * set missing before classifying it, as Weka's Evaluation does.
 */
public class FoldRunner {

    private static Object field(Object o, String name) throws Exception {
        Class<?> c = o.getClass();
        while (c != null) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                c = c.getSuperclass();
            }
        }
        throw new NoSuchFieldException(name);
    }

    private static Instance through(Object filter, Instance inst) throws Exception {
        if (filter == null) {
            return inst;
        }
        Filter f = (Filter) filter;
        f.input(inst);
        return f.output();
    }

    private static String smoOutputs(Classifier smo, Instance inst) throws Exception {
        inst = through(field(smo, "m_Missing"), inst);
        inst = through(field(smo, "m_NominalToBinary"), inst);
        inst = through(field(smo, "m_Filter"), inst);
        Object[][] machines = (Object[][]) field(smo, "m_classifiers");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < machines.length; i++) {
            for (int j = i + 1; j < machines.length; j++) {
                Object m = machines[i][j];
                if (sb.length() > 0) {
                    sb.append(',');
                }
                if (field(m, "m_alpha") == null && field(m, "m_sparseWeights") == null) {
                    sb.append("nan");
                    continue;
                }
                Method out = m.getClass().getDeclaredMethod("SVMOutput", int.class, Instance.class);
                out.setAccessible(true);
                sb.append(Double.toString((Double) out.invoke(m, -1, inst)));
            }
        }
        return sb.toString();
    }

    private static Instances read(String path) throws Exception {
        BufferedReader r = new BufferedReader(new FileReader(path));
        Instances d = new Instances(r);
        r.close();
        d.setClassIndex(d.numAttributes() - 1);
        return d;
    }

    public static void main(String[] args) throws Exception {
        String name = args[0];
        List<String> opts = new ArrayList<String>();
        int k = 1;
        while (!args[k].equals("---")) {
            opts.add(args[k]);
            k++;
        }
        k++;
        boolean smo = name.equals("weka.classifiers.functions.SMO");
        StringBuilder out = new StringBuilder();
        for (int fold = 0; k + 1 < args.length; fold++, k += 2) {
            Instances train = read(args[k]);
            Instances test = read(args[k + 1]);
            Classifier c = Classifier.forName(name, opts.toArray(new String[0]));
            c.buildClassifier(train);
            for (int i = 0; i < test.numInstances(); i++) {
                Instance inst = (Instance) test.instance(i).copy();
                inst.setDataset(test);
                inst.setClassMissing();
                double[] dist = c.distributionForInstance(inst);
                double pred = c.classifyInstance(inst);
                out.append(fold).append(' ').append((int) pred).append(' ');
                for (int j = 0; j < dist.length; j++) {
                    out.append(j > 0 ? "," : "").append(Double.toString(dist[j]));
                }
                if (smo) {
                    out.append(" | ").append(smoOutputs(c, inst));
                }
                out.append('\n');
            }
        }
        System.out.print(out);
    }
}
